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
  exposeHeaders: ['X-Service-Trace-Id', 'Retry-After'],
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
    if (origin === null || !allows(origin)) return next()

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
      Vary: 'Origin',
    }
    if (settings.credentials && !anyOrigin) headers['Access-Control-Allow-Credentials'] = 'true'
    return withHeaders(await next(), headers)
  }
}
