/**
 * CORS: answers preflights from allowed origins and marks their responses.
 * Requests from other origins get no CORS headers (the browser then blocks
 * them); plain OPTIONS requests fall through to the router, which answers
 * with `Allow`.
 */
import { withHeaders } from '../../http/response.ts'
import type { Middleware } from '../../router/types.ts'

export interface CorsOptions {
  /** Allowed origins, or `['*']` for any (then credentials are never allowed). */
  origins: string[]
  methods?: string[]
  headers?: string[]
  exposeHeaders?: string[]
  credentials?: boolean
  maxAgeSeconds?: number
}

const defaults = {
  methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
  headers: ['Content-Type', 'Authorization', 'X-Api-Key', 'X-Requested-With'],
  // What a page reads of svc's answers: the trace id, when to retry, the throttle's budget (throttling.md) and
  // whether an idempotent POST was a replay (idempotency.md). Unexposed, the browser hides them from the page.
  exposeHeaders: ['X-Service-Trace-Id', 'Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Idempotent-Replayed'],
  credentials: false,
  maxAgeSeconds: 600,
}

/** @example cors({ origins: ['https://app.example.com'] }) */
export function cors(options: CorsOptions): Middleware {
  const settings = { ...defaults, ...options }
  const anyOrigin = settings.origins.includes('*')
  const allows = (origin: string): boolean => anyOrigin || settings.origins.includes(origin)

  return async function corsMiddleware(c, next) {
    const origin = c.headers.get('origin')
    // Unmarked, the answer still depends on Origin: a cache must not give it to an allowed origin's page.
    if (origin === null || !allows(origin)) return varyOnOrigin(await next())

    const allowOrigin = anyOrigin ? '*' : origin
    const isPreflight = c.method === 'OPTIONS' && c.headers.has('access-control-request-method')
    if (isPreflight) {
      const headers: Record<string, string> = {
        'Access-Control-Allow-Origin': allowOrigin,
        'Access-Control-Allow-Methods': settings.methods.join(', '),
        'Access-Control-Allow-Headers': settings.headers.join(', '),
        'Access-Control-Max-Age': String(settings.maxAgeSeconds),
        Vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
      }
      if (settings.credentials && !anyOrigin) headers['Access-Control-Allow-Credentials'] = 'true'
      return new Response(null, { status: 204, headers })
    }

    const headers: Record<string, string> = {
      'Access-Control-Allow-Origin': allowOrigin,
      'Access-Control-Expose-Headers': settings.exposeHeaders.join(', '),
    }
    if (settings.credentials && !anyOrigin) headers['Access-Control-Allow-Credentials'] = 'true'
    return varyOnOrigin(withHeaders(await next(), headers))
  }
}

/** Adds Origin to the response's Vary, keeping what a handler put there (`Vary: Accept-Encoding`). */
function varyOnOrigin(response: Response): Response {
  const vary = response.headers.get('vary')
  if (vary === null || vary.trim() === '') return withHeaders(response, { Vary: 'Origin' })
  if (vary.split(',').some((name) => ['origin', '*'].includes(name.trim().toLowerCase()))) return response
  return withHeaders(response, { Vary: `${vary}, Origin` })
}
