/**
 * A bench server: started by a factory inside its own child process
 * (bench/server-process.ts), listening on 127.0.0.1 on a free port.
 */
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface BenchServer {
  port: number
  /**
   * Headers every request to this server must carry, decided inside the
   * server process (e.g. a bearer token minted for a user it created).
   */
  headers?: Record<string, string>
  close(): Promise<void>
}

/** Options cross the process boundary as JSON: keep them plain values. */
export type ServerOptions = Record<string, unknown>

export type ServerFactory = (options: ServerOptions) => Promise<BenchServer>

export const BENCH_HOST = '127.0.0.1'

/** What a server process prints once it listens, followed by `{ port, headers }` as JSON. */
export const READY = 'READY '

/** Listens on 127.0.0.1, port 0, and answers the port and a close(). */
export async function listen(server: Server): Promise<BenchServer> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, BENCH_HOST, () => resolve())
  })
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

/** The JSON every peer answers on the benchmark routes, byte for byte the same data. */
export const HELLO_BODY = { success: true, data: { message: 'Hello, world!' } }
export const userBody = (id: string) => ({ success: true, data: { id: Number(id) } })

/** The one user of the password benchmarks (registered by each server at start, logged in by the load). */
export const BENCH_EMAIL = 'bench@example.com'
export const BENCH_PASSWORD = 'bench-password-123'
