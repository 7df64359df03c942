/**
 * What a route's description says about who may call it and how it can fail:
 * its `auth`, `apikey`, `verified` and `throttle` aliases (parsed the way the
 * app parses them), its declared schemas and constraints, and the errors its
 * handler declares (`.errors()`). Each error status comes with when it
 * happens; the API description and the Postman collection read these.
 */
import { parseAlias } from '../../framework/middleware/aliases.ts'
import type { RouteDescription } from '../../framework/router/types.ts'
import { unanchorConstraint } from '../../framework/router/path-grammar.ts'
import { LIVE_PATH } from '../../framework/middleware/maintenance/index.ts'

export interface RouteAccess {
  /** `auth` or `auth:<roles>`: a bearer token is required. */
  bearer: boolean
  /** Roles of `auth:<roles>` (any one admits); empty when any signed-in user may call. */
  roles: string[]
  /** `apikey` or `apikey:<scopes>`: the `x-api-key` header is required. */
  apiKey: boolean
  /** Scopes of `apikey:<scopes>` (all are needed). */
  scopes: string[]
  /** `verified`: the user's email address must be verified. */
  verified: boolean
  /** `throttle:<max>,<minutes>` aliases, in order. */
  throttles: Array<{ maxAttempts: number; decayMinutes: number }>
  /** `idempotent` (the Idempotency-Key header is required) or `idempotent:optional`; undefined without the alias. */
  idempotency?: 'required' | 'optional'
}

export interface ErrorCase {
  status: number
  /** Each way this status happens, in a fixed order (svc's middleware, input, then the handler's own). */
  reasons: string[]
  /** Headers the answer carries besides the trace id. */
  headers: string[]
}

export function routeAccess(route: RouteDescription): RouteAccess {
  const access: RouteAccess = { bearer: false, roles: [], apiKey: false, scopes: [], verified: false, throttles: [] }
  for (const spec of route.middleware) {
    const { name, args } = parseAlias(spec)
    if (name === 'auth') {
      access.bearer = true
      access.roles.push(...args.filter((role) => !access.roles.includes(role)))
    } else if (name === 'apikey') {
      access.apiKey = true
      access.scopes.push(...args.filter((scope) => !access.scopes.includes(scope)))
    } else if (name === 'verified') {
      access.verified = true
    } else if (name === 'throttle' && args.length === 2) {
      access.throttles.push({ maxAttempts: Number(args[0]), decayMinutes: Number(args[1]) })
    } else if (name === 'idempotent') {
      access.idempotency = args[0] === 'optional' ? 'optional' : 'required'
    }
  }
  return access
}

/** Every error answer the route can give that is known before it runs, by status. */
export function errorCases(route: RouteDescription, access: RouteAccess = routeAccess(route)): ErrorCase[] {
  const cases = new Map<number, ErrorCase>()
  const add = (status: number, reason: string, headers: string[] = []) => {
    const known = cases.get(status) ?? { status, reasons: [], headers: [] }
    if (!known.reasons.includes(reason)) known.reasons.push(reason)
    for (const header of headers) if (!known.headers.includes(header)) known.headers.push(header)
    cases.set(status, known)
  }

  if (route.schemas.body !== null) add(400, 'The body is not valid JSON (or not UTF-8).')
  if (access.bearer) {
    add(401, 'The bearer token is missing, invalid, expired or revoked (logout, password reset).', ['WWW-Authenticate'])
    add(403, 'The account is inactive.')
    if (access.roles.length > 0) add(403, `The user's role is not ${listOf(access.roles)}.`)
  }
  if (access.verified) add(403, "The user's email address is not verified.")
  if (access.apiKey) {
    add(401, 'The x-api-key header is missing or wrong.')
    if (access.scopes.length > 0) add(403, `The API key lacks a scope of ${listOf(access.scopes, 'and')} (missing_scopes lists them).`)
  }
  for (const param of route.params) {
    if (param.pattern !== null) add(404, `A {${param.name}} that does not match ${unanchorConstraint(param.pattern)} matches no route here.`)
  }
  if (route.schemas.body !== null) {
    add(413, 'The body is larger than BODY_LIMIT.')
    add(415, 'The body is not sent as application/json.')
  }
  if (route.schemas.body !== null || route.schemas.query !== null) {
    add(422, `The ${[route.schemas.body && 'body', route.schemas.query && 'query string'].filter(Boolean).join(' or the ')} failed validation: errors lists the messages by field.`)
  }
  if (access.idempotency !== undefined) {
    add(400, access.idempotency === 'required' ? 'The Idempotency-Key header is missing or malformed.' : 'The Idempotency-Key header is malformed.')
    add(409, 'A request with this Idempotency-Key is still being processed (Retry-After says when to retry).', ['Retry-After'])
    add(422, 'This Idempotency-Key was used with another body.')
  }
  for (const { maxAttempts, decayMinutes } of access.throttles) {
    add(429, `More than ${maxAttempts} requests in ${decayMinutes} minute${decayMinutes === 1 ? '' : 's'} (Retry-After says when to retry).`, RATE_LIMIT_HEADERS_429)
  }
  // svc's own, on any route that reaches the app: maintenance mode (svc serve's `svc down`), a busy database.
  if (route.path !== LIVE_PATH) add(503, UNAVAILABLE, ['Retry-After'])
  for (const [status, reason] of Object.entries(route.responses.errors)) {
    add(Number(status), withStop(reason), RETRY_AFTER_STATUSES.includes(Number(status)) ? ['Retry-After'] : [])
  }
  return [...cases.values()].sort((a, b) => a.status - b.status)
}

const UNAVAILABLE =
  'The app is down for maintenance (svc down: `error` is its message, `maintenance` when it ends), or the database is too busy to wait for (Retry-After says when to retry).'

/**
 * Statuses svc itself answers with `Retry-After`: the login lock (423), a
 * throttle (429), a busy service, an unreachable database and maintenance
 * mode (503). A handler's declared one may come from any of them, so it is
 * documented there too (optional, as OpenAPI headers are unless required).
 */
const RETRY_AFTER_STATUSES = [423, 429, 503]

/** Headers of every answer of a throttled route, and of its 429 (with Retry-After). */
export const RATE_LIMIT_HEADERS = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']
const RATE_LIMIT_HEADERS_429 = ['Retry-After', ...RATE_LIMIT_HEADERS]

function listOf(items: string[], last = 'or'): string {
  return items.length === 1 ? items[0]! : `${items.slice(0, -1).join(', ')} ${last} ${items.at(-1)}`
}

function withStop(text: string): string {
  const trimmed = text.trim()
  return /[.!?)]$/.test(trimmed) ? trimmed : `${trimmed}.`
}
