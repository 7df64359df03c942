/**
 * svc, built only with the public API (`svc` and `svc/node`), on one of the
 * Node server adapters under comparison:
 * - `node-server`: `serve` from svc/node (@hono/node-server), what svc ships;
 * - `srvx`: srvx's node handler, with its FastResponse as the global Response;
 * - `node-http`: a thin adapter of our own over node:http with native Request/Response.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { Readable } from 'node:stream'
import { CONN_INFO, createApp, defineRoutes, resolveConfig, type App, type RouteRegistrar } from 'svc'
import { serve } from 'svc/node'
import { BENCH_HOST, listen, type BenchServer, type ServerOptions } from './types.ts'

export type SvcAdapter = 'node-server' | 'srvx' | 'node-http'

export interface SvcServerOptions {
  adapter?: SvcAdapter
  /** Registers this many `/api/...` routes, the one the benchmark requests last. */
  routes?: number
  /** Puts those routes in a version group: `/api/v1/...`. */
  versioned?: boolean
  /**
   * Hands `serve` a promise of every answer, as a route with a parameter does (itty's `fetch` is async):
   * what @hono/node-server's asynchronous path costs, apart from matching.
   */
  answerAsPromise?: boolean
}

/** The routes of the scaling benchmark: distinct prefixes, the requested one last. */
export const SCALING_PATH = '/api/target/items/42'
export const VERSIONED_SCALING_PATH = '/api/v1/target/items/42'

export function svcBenchApp(options: SvcServerOptions = {}): App {
  const web = defineRoutes((r) => {
    r.get('/hello', function hello() {
      return { message: 'Hello, world!' }
    })
    r.get('/users/{id}', function showUser(c) {
      return { id: Number(c.params.id) }
    }).where('id', /\d+/)
  })
  const count = options.routes ?? 0
  const api =
    count === 0
      ? undefined
      : defineRoutes((r) => {
          const showItem = (c: { params: Record<string, string> }) => ({ id: Number(c.params.id) })
          const register = (r: RouteRegistrar) => {
            for (let i = 0; i < count - 1; i++) r.get(`/r${i}/items/{id}`, showItem).where('id', /\d+/)
            r.get('/target/items/{id}', showItem).where('id', /\d+/)
          }
          if (options.versioned) r.version(1, register)
          else register(r)
        })
  return createApp({ config: resolveConfig({ APP_ENV: 'production' }), web, api })
}

export async function startSvcServer(raw: ServerOptions): Promise<BenchServer> {
  const options = raw as SvcServerOptions
  const adapter = options.adapter ?? 'node-server'
  if (adapter === 'srvx') {
    const { FastResponse, toNodeHandler } = await import('srvx/node')
    Object.defineProperty(globalThis, 'Response', { value: FastResponse, configurable: true, writable: true })
    const app = svcBenchApp(options)
    type SrvxRequest = Request & { ip?: string }
    const handle = syncableFetch(app)
    const handler = toNodeHandler((request: SrvxRequest) => handle(request, { [CONN_INFO]: { remoteAddress: request.ip } }))
    return listen(createServer(handler as (req: IncomingMessage, res: ServerResponse) => void))
  }
  const app = svcBenchApp(options)
  if (adapter === 'node-http') return listen(createServer(thinNodeHandler(app)))
  const served = options.answerAsPromise
    ? { fetch: (request: Request, env?: unknown) => Promise.resolve(app.fetch(request, env)), reject: app.reject, config: app.config }
    : app
  const server = await serve(served, { port: 0, host: BENCH_HOST })
  return { port: server.port, close: () => server.close() }
}

/**
 * The simplest adapter one would write: a native Request in, the native
 * Response's bytes out (buffered, so Content-Length is always known).
 */
function thinNodeHandler(app: App) {
  const handle = syncableFetch(app)
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const headers = new Headers()
    for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!)
    const method = req.method ?? 'GET'
    const init: RequestInit & { duplex?: 'half' } = { method, headers }
    if (method !== 'GET' && method !== 'HEAD') {
      init.body = Readable.toWeb(req) as ReadableStream
      init.duplex = 'half'
    }
    const request = new Request(`http://${req.headers.host ?? BENCH_HOST}${req.url ?? '/'}`, init)
    const response = await handle(request, { [CONN_INFO]: { remoteAddress: req.socket.remoteAddress } })
    const body = response.body === null ? null : Buffer.from(await response.arrayBuffer())
    const out: Record<string, string | string[]> = {}
    response.headers.forEach((value, name) => {
      if (name !== 'set-cookie') out[name] = value
    })
    const cookies = response.headers.getSetCookie()
    if (cookies.length > 0) out['set-cookie'] = cookies
    if (body !== null) out['content-length'] = String(body.byteLength)
    res.writeHead(response.status, out)
    res.end(body)
  }
}

type Handle = (request: Request, env: unknown) => Response | Promise<Response>

/** The entry svc/node's serve calls (answers synchronously when it can), so every adapter gets the same. */
function syncableFetch(app: App): Handle {
  return (app as unknown as Record<symbol, Handle | undefined>)[Symbol.for('svc.handle')] ?? ((request, env) => app.fetch(request, env))
}
