/**
 * Shared by the extension's test layers: a temporary copy of the blog example
 * with recorded traffic (the real `svc serve` writes the traces), and the
 * built `svc` to run in it.
 */
import { copyExampleApp, spawnSvc, startSvc, svcJson, waitForLine, type AppCopy } from '../helpers/cli.ts'

export interface RecordedApp extends AppCopy {
  /** The requests sent, in order: [method, path, status]. */
  sent: Array<{ method: string; path: string; status: number; traceId: string | null }>
}

export interface RequestSpec {
  method: string
  path: string
  json?: unknown
}

/** The traffic recorded by default: successes, a 404 (no such post), a 404 route miss, a 500 (GET /boom, see below). */
export const DEFAULT_TRAFFIC: RequestSpec[] = [
  { method: 'GET', path: '/api/v1/posts' },
  { method: 'GET', path: '/api/v1/posts/1' },
  { method: 'GET', path: '/api/v1/posts/999' },
  { method: 'GET', path: '/api/v2/posts' },
  { method: 'GET', path: '/nowhere' },
  { method: 'GET', path: '/boom' },
  { method: 'GET', path: '/' },
]

/** The copy gets one failing route, so that the traces have an error (a 500 with an exception). */
const FAILING_ROUTE = `  r.get('/boom', function boom() {
    throw new Error('boom: a failing handler, for the extension tests')
  })
`

/** Copies the blog app, migrates and seeds it, serves it, sends `traffic`, and stops the server (flushing the traces). */
export async function recordedApp(traffic: RequestSpec[] = DEFAULT_TRAFFIC, env: Record<string, string> = {}): Promise<RecordedApp> {
  const app = copyExampleApp('blog')
  app.write('routes/web.ts', app.read('routes', 'web.ts').replace(/\n\}\)\s*$/, `\n${FAILING_ROUTE}})\n`))
  if (!app.read('routes', 'web.ts').includes("'/boom'")) throw new Error('could not add GET /boom to the copy of routes/web.ts')
  const fresh = await spawnSvc(['migrate:fresh', '--seed'], { cwd: app.dir, env, timeoutMs: 60_000 })
  if (fresh.code !== 0) throw new Error(`migrate:fresh --seed failed: ${fresh.stderr}`)
  const server = startSvc(['serve', '--port', '0', '--host', '127.0.0.1'], { cwd: app.dir, env })
  const sent: RecordedApp['sent'] = []
  try {
    const [, url] = await waitForLine(server.stdout, /listening on (http:\/\/\S+)/, 30_000)
    for (const request of traffic) {
      const response = await fetch(`${url!.replace(/\/$/, '')}${request.path}`, {
        method: request.method,
        headers: request.json === undefined ? {} : { 'content-type': 'application/json' },
        body: request.json === undefined ? undefined : JSON.stringify(request.json),
      })
      await response.arrayBuffer()
      sent.push({ method: request.method, path: request.path, status: response.status, traceId: response.headers.get('x-service-trace-id') })
    }
  } finally {
    const exited = new Promise((resolve) => server.once('close', resolve))
    server.kill('SIGTERM')
    await exited
  }
  // Every request was recorded (a graceful stop flushes the trace writer): the tests below rely on it.
  const stored = await svcJson<{ traces: unknown[] }>(['trace:list', '--limit=1000'], { cwd: app.dir, env })
  if (stored.traces.length !== sent.length) {
    app.remove()
    throw new Error(`the trace store has ${stored.traces.length} traces after ${sent.length} requests`)
  }
  return { ...app, sent }
}
