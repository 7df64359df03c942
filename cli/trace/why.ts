/**
 * api:why, debug:last and fix: what the router does with a request (which
 * route matches and why the others do not), and why a traced request failed
 * (which middleware refused it and for what reason).
 */
import { API_KEY_HEADER } from '../../framework/index.ts'
import { type TraceRecord } from '../../framework/trace/index.ts'
import type { FailureJson, FailureKind, RoutingJson } from '../contract/traces.ts'
import { loadApp } from '../project/load-app.ts'
import type { Project } from '../project/project.ts'
import { routeDefinitionPosition } from '../project/source-position.ts'
import { positionAsWritten, positionText } from './positions-as-written.ts'

/** What the app's router does with `method path` (`app.explain`, on the app as the project defines it). */
export async function explainRouting(project: Project, method: string, path: string): Promise<RoutingJson> {
  const loaded = await loadApp(project, { withDatabase: false })
  try {
    const routing = await loaded.app.explain(method, path)
    // The route's definition as written (jiti ran the routes file transpiled: its stack columns are babel's).
    const source = routing.matched?.source
    return source ? { ...routing, matched: { ...routing.matched!, source: routeDefinitionPosition(source) } } : routing
  } finally {
    await loaded.close()
  }
}

const AUTH_KINDS = new Set<FailureKind>(['missing_token', 'invalid_token', 'expired_token', 'token_version', 'inactive', 'role', 'api_key', 'throttle'])

/** Why a traced request failed; null when it did not (status below 400 and nothing thrown). */
export function explainFailure(record: TraceRecord, routing: RoutingJson | null, ttlSeconds?: number): FailureJson | null {
  const exception = record.exception
  if (record.status_code < 400 && exception === null) return null
  const status = record.status_code
  const message = exception?.message ?? `HTTP ${status}`
  const kind = failureKind(record)
  const routeMiddleware = routing?.matched?.middleware ?? []
  const answered = answeringLayer(record, routing, kind)
  const refusing = answered.layer === 'middleware' ? answered.name : null
  const roles = routeMiddleware.find((name) => name.startsWith('auth:'))?.slice('auth:'.length)
  const throttleAlias = routeMiddleware.find((name) => name.startsWith('throttle:'))
  const retryAfter = headerOf(record.response.headers, 'retry-after')
  // A trace keeps the stack's position, whose column is babel's when jiti ran the file: mapped to the file as written.
  const thrownAt = exception?.location ? positionAsWritten(exception.location, Date.parse(record.timestamp)) : null
  const where = thrownAt ? ` at ${positionText(thrownAt)}` : ''
  const explanations: Record<FailureKind, string> = {
    invalid_credentials:
      'Invalid credentials: the email or the password is wrong (the login handler answers the same for both, so that it does not tell which accounts exist). Repeated failures lock the account for a while (423).',
    missing_token: 'No bearer token was sent: the auth middleware requires `Authorization: Bearer <token>`. Log in (POST /api/auth/login) and send the token; replay with --as=<email>.',
    invalid_token: 'The bearer token was refused: malformed, bad signature, signed with another secret, or not an access token. Log in again for a fresh token (replay with --as=<email>).',
    expired_token: `The access token had expired${ttlSeconds ? ` (JWT_TTL is ${ttlSeconds} s)` : ''}. Refresh it (POST /api/auth/refresh) or log in again.`,
    token_version: "The token was revoked: the user's token_version changed after it was issued (logout or password reset). Log in again.",
    inactive: 'The account is not active (users.status is not 1): the auth middleware refuses it with 403.',
    role: `The user's role is not allowed on this route${roles ? ` (allowed: ${roles})` : ''}.`,
    api_key: apiKeyExplanation(record, routeMiddleware, refusing),
    throttle: `Rate limit exceeded${throttleAlias ? ` (${throttleAlias}: max attempts, decay minutes)` : ''}${retryAfter ? `; retry after ${retryAfter} s` : ''}.`,
    validation: `Validation failed: ${Object.entries(exception?.errors ?? {}).map(([field, messages]) => `${field}: ${messages.map((m) => m.replace(/\.$/, '')).join('; ')}`).join(', ') || message}.`,
    bad_request: `The request was refused before the handler ran: ${message}.`,
    not_found:
      record.route !== null
        ? `The route ${record.route} matched; its handler answered 404: ${message}${where}.`
        : routing?.outcome === 'fallback'
          ? `No route matches; the fallback of routes/${routing.fallback}.ts answered: ${message}.`
          : `No route matches ${record.method} ${record.path}.`,
    method_not_allowed: `The path exists, but not for ${record.method}${routing && routing.allowed.length > 0 ? `: it allows ${routing.allowed.join(', ')}` : ''}.`,
    exception: `The handler threw ${exception?.class ?? 'an error'}: ${message}${where}.`,
    http_error: `${status} ${message}${where}.`,
  }
  let explanation = explanations[kind]
  if (answered.layer === 'handler' && AUTH_KINDS.has(kind)) {
    // Not the auth, throttle or api-key middleware: advice about the bearer token would send the user the wrong way.
    explanation = `The route's handler${answered.name ? ` ${answered.name}` : ''} answered ${status} ${message} itself${where}, not a middleware: it refused something the handler checks (a token or key in the request body, say), not the bearer token or API key a middleware checks.`
  } else if (answered.layer === 'unknown') {
    explanation += ` The trace does not tell whether the route's last middleware, ${answered.middleware}, or its handler${answered.handler ? ` ${answered.handler}` : ''} answered: with APP_DEBUG=true traces keep the stack, which tells.`
  }
  return {
    kind,
    status,
    message,
    middleware: refusing,
    explanation,
    errors: exception?.errors ?? null,
    // svc threw in its own pipeline (auth, a declared .body(), throttle): no app code threw, so the route is named,
    // where what refused was declared (docs/traces.md, "Where it threw").
    location: exception === null ? null : (thrownAt ?? routing?.matched?.source ?? null),
  }
}

/** Which layer answered a traced request: a middleware (by the name in the timeline), the route's handler, the router, or unknown. */
export type AnsweringLayer =
  | { layer: 'middleware'; name: string }
  | { layer: 'handler'; name: string | null }
  | { layer: 'router' }
  | { layer: 'unknown'; middleware: string; handler: string | null }

/** Failures that middleware produce, and the names of the middleware that do (a route that declares none of them was refused by its handler). */
const PRODUCERS: Partial<Record<FailureKind, RegExp>> = {
  missing_token: /auth/i,
  invalid_token: /auth/i,
  expired_token: /auth/i,
  token_version: /auth/i,
  inactive: /auth/i,
  role: /auth|role/i,
  api_key: /api.?key/i,
  throttle: /throttle|rate/i,
}

/** Failures only the route's endpoint produces: its input validation, the login handler, its own 404. */
const HANDLER_KINDS = new Set<FailureKind>(['validation', 'invalid_credentials', 'not_found'])

/**
 * Who answered, from what the trace records. A middleware runs only when
 * the one before it called next(), so the innermost one recorded either
 * answered or passed the request to the handler. The timeline says which
 * (`called_next`): the middleware that did not call next() answered; when
 * every one did, the handler answered, unless the stack shows a middleware
 * throwing after its next() returned.
 *
 * Records written before `called_next` existed do not say, so for them:
 * 1. the stack (kept with APP_DEBUG): the function just above the middleware
 *    runner's frame is the layer that threw, a recorded middleware or else the
 *    endpoint (the handler, with its input validation);
 * 2. else the route's declared middleware (`routing`, for the trace's own
 *    route): when fewer ran than it declares, the innermost one stopped the
 *    request; when it declares none, what ran wraps every route (CORS,
 *    public files) and the handler answered; a failure a middleware produces
 *    (a token, a role, a key, a rate limit) is the innermost one's when the
 *    route declares such a middleware, else the handler's;
 * 3. else, when every declared middleware ran, it is unknown: the last one or
 *    the handler.
 */
export function answeringLayer(record: TraceRecord, routing: RoutingJson | null, kind: FailureKind = failureKind(record)): AnsweringLayer {
  if (record.route === null) return { layer: 'router' }
  const route = routing?.outcome === 'matched' && routing.matched !== null && routing.matched.path === record.route ? routing.matched : null
  const handler = route?.handler ?? null
  // By start time; a tie (times are rounded to the microsecond) goes to the one that ends last, the outer one.
  const ran = [...record.middleware].sort((a, b) => a.start_ms - b.start_ms || b.start_ms + b.duration_ms - (a.start_ms + a.duration_ms))
  const innermost = ran.at(-1)
  if (innermost === undefined) return { layer: 'handler', name: handler }
  const thrower = throwingLayer(record.trace, new Set(ran.map((step) => step.name)))
  if (innermost.called_next !== undefined) {
    const stopped = ran.findLast((step) => step.called_next === false)
    if (stopped !== undefined) return { layer: 'middleware', name: stopped.name }
    return thrower !== undefined && thrower !== 'handler' ? { layer: 'middleware', name: thrower } : { layer: 'handler', name: handler }
  }
  if (thrower === 'handler') return { layer: 'handler', name: handler }
  if (thrower !== undefined) return { layer: 'middleware', name: thrower }
  const producer = PRODUCERS[kind]
  if (route === null) return producer !== undefined ? { layer: 'middleware', name: innermost.name } : { layer: 'handler', name: handler }
  if (route.middleware.length === 0) return { layer: 'handler', name: handler }
  if (ran.length < route.middleware.length) return { layer: 'middleware', name: innermost.name }
  if (producer !== undefined) return route.middleware.some((name) => producer.test(name)) ? { layer: 'middleware', name: innermost.name } : { layer: 'handler', name: handler }
  if (HANDLER_KINDS.has(kind)) return { layer: 'handler', name: handler }
  return { layer: 'unknown', middleware: innermost.name, handler }
}

/** The middleware runner's own frames (`timed`, `run`, `settle` in framework/middleware/compose). */
const RUNNER_FRAME = /[\\/]middleware[\\/]compose\.[cm]?[jt]s:\d+/

const RUNTIME_FRAME = /\((?:node:|native\)|<anonymous>\))|^at node:/

/** From a recorded stack: the recorded middleware that threw, 'handler' when the endpoint did, undefined when the stack does not tell. */
function throwingLayer(stack: readonly string[] | null, middleware: ReadonlySet<string>): string | undefined {
  if (stack === null) return undefined
  const frames = stack.map((line) => line.trim()).filter((line) => line.startsWith('at '))
  const runner = frames.findIndex((frame) => RUNNER_FRAME.test(frame))
  // The runtime's own frames (`process.processTicksAndRejections (node:internal/...)`) may sit between a layer and the runner.
  const layer = frames.slice(0, Math.max(runner, 0)).findLast((frame) => !RUNTIME_FRAME.test(frame))
  if (layer === undefined) return undefined
  const name = /^at (?:async )?(?:new )?([^\s(]+) \(/.exec(layer)?.[1]?.split('.').at(-1) ?? ''
  if (middleware.has(name) && name !== 'anonymous') return name
  // A nameless frame may be an anonymous middleware as well as the endpoint.
  return name === '' && middleware.has('anonymous') ? undefined : 'handler'
}

export function failureKind(record: TraceRecord): FailureKind {
  const status = record.status_code
  const exception = record.exception
  const message = (exception?.message ?? '').toLowerCase()
  const challenge = (headerOf(record.response.headers, 'www-authenticate') ?? '').toLowerCase()
  if (status === 401) {
    // The login route's own refusal (its handler, not a middleware: the throttle before it let the request through).
    if (message === 'invalid credentials') return 'invalid_credentials'
    if (message.includes('expired')) return 'expired_token'
    if (message.includes('revoked') || message.includes('version')) return 'token_version'
    if (message === 'unauthorized' || message.includes('api key')) return 'api_key'
    if (message.includes('unauthenticated') || (challenge !== '' && !challenge.includes('invalid_token'))) return 'missing_token'
    return 'invalid_token'
  }
  if (status === 403) {
    if (message.includes('inactive') || message.includes('not active') || message.includes('disabled')) return 'inactive'
    if (message.includes('scope') || record.response.body.content !== null && JSON.stringify(record.response.body.content).includes('missing_scopes')) return 'api_key'
    return 'role'
  }
  if (status === 429) return 'throttle'
  if (status === 422 || exception?.class === 'ValidationError') return 'validation'
  if (status === 404) return 'not_found'
  if (status === 405) return 'method_not_allowed'
  if (status === 400 || status === 413 || status === 415) return 'bad_request'
  if (exception !== null && exception.class !== 'HttpError' && status >= 500) return 'exception'
  return 'http_error'
}

/**
 * Which check of the api-key middleware refused. The key itself is redacted in
 * the trace, but whether the header was sent, the row count of the key lookup
 * and the 403 body's `missing_scopes` are there.
 */
function apiKeyExplanation(record: TraceRecord, routeMiddleware: readonly string[], refusing: string | null): string {
  const alias = routeMiddleware.find((name) => name === 'apikey' || name.startsWith('apikey:'))
  const refused = `The ${alias ?? refusing ?? 'api-key'} middleware refused the request`
  if (record.status_code === 403) {
    const missing = missingScopes(record)
    const scopes = missing.length > 0 ? missing : (alias?.slice('apikey:'.length).split(',') ?? [])
    return `${refused}: the key is valid but lacks the scope ${scopes.join(', ') || 'the route needs'}. Send a key holding it (svc make:apikey <name> ${scopes.join(',') || '<scopes>'} <days>).`
  }
  if (headerOf(record.headers, API_KEY_HEADER) === null) {
    return `${refused}: no x-api-key header was sent. Send the key in x-api-key (replay with --edit to add the header).`
  }
  if (alias === 'apikey' || refusing === 'apiKeyMiddleware') return `${refused}: the x-api-key header does not equal API_KEY.`
  const lookup = record.queries.find((query) => /\bfrom\s+api_keys\b/i.test(query.sql))
  if (lookup === undefined) return `${refused}: the x-api-key header is not a usable key (empty or too long).`
  if (lookup.rows === 0) return `${refused}: the x-api-key header matches no stored key (mistyped, or made for another database). svc make:apikey makes one.`
  return `${refused}: the key exists but is revoked or expired. Make a new one with svc make:apikey.`
}

function missingScopes(record: TraceRecord): string[] {
  const body = record.response.body.content
  const missing = body !== null && typeof body === 'object' ? (body as { missing_scopes?: unknown }).missing_scopes : undefined
  return Array.isArray(missing) ? missing.filter((scope): scope is string => typeof scope === 'string') : []
}

function headerOf(headers: Record<string, string>, name: string): string | null {
  for (const key of Object.keys(headers)) if (key.toLowerCase() === name) return headers[key]!
  return null
}
