/**
 * Runs an app through svc's real Node server (`svc/node`'s `serve`) on
 * 127.0.0.1 and a free port, for the tests that must cross the wire.
 */
import { connect } from 'node:net'
import type { App } from 'svc'
import { serve, type RunningServer } from 'svc/node'

export type { RunningServer }

/** Starts `app` on 127.0.0.1:0; the caller closes it (see `withServer`). */
export function startServer(app: Pick<App, 'fetch'>, options: { onClose?: () => void | Promise<void> } = {}): Promise<RunningServer> {
  return serve(app, { port: 0, host: '127.0.0.1', ...options })
}

/** Runs `work` against a server that is closed afterwards, even when `work` throws. */
export async function withServer<T>(app: Pick<App, 'fetch'>, work: (server: RunningServer) => Promise<T>): Promise<T> {
  const server = await startServer(app)
  try {
    return await work(server)
  } finally {
    await server.close()
  }
}

/** Sends raw bytes (what no HTTP client would send) to 127.0.0.1:`port` and returns the trace id of the answer. */
export function sendRaw(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    let received = ''
    socket.setEncoding('latin1')
    socket.on('data', (chunk: string) => (received += chunk))
    socket.on('error', reject)
    socket.on('close', () => resolve(/x-service-trace-id: (\S+)/i.exec(received)?.[1] ?? `no trace id in ${JSON.stringify(received)}`))
    socket.on('connect', () => socket.write(bytes))
  })
}
