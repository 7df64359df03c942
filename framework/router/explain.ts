/**
 * Why a request goes where it goes: `app.explain(method, path)`. The outcome
 * (which route, 405 with its Allow list, OPTIONS, which fallback, 400) comes
 * from the route table itself, by the calls `fetch` makes; this module adds,
 * for the routes defined before the one that answered, why each did not:
 * another path, another prefix, a failed constraint, another method.
 */
import { isHttpError } from '../http/http-error.ts'
import { parseSegments, leadingSegments, unanchorConstraint, type PathPattern } from './path-grammar.ts'
import type { RouteTable } from './route-table.ts'
import type { RouteDescription, RouteMethod, SourceLocation } from './types.ts'

/** Why a route did not take the request. */
export type RouteMissReason = 'prefix' | 'pattern' | 'constraint' | 'method'

export interface RouteCandidate {
  method: string
  path: string
  reason: RouteMissReason
  /** `{id}: "abc" does not match /\d+/`, `answers GET, not POST`... */
  detail: string
}

export type RoutingOutcome = 'matched' | 'method_not_allowed' | 'options' | 'fallback' | 'not_found' | 'bad_request'

export interface RoutingExplanation {
  outcome: RoutingOutcome
  matched: {
    method: string
    path: string
    params: Record<string, string>
    middleware: string[]
    handler: string
    source: SourceLocation | null
  } | null
  /** Routes defined before the answer that came close (same first segment), with why each does not match. */
  candidates: RouteCandidate[]
  /** For 405 and OPTIONS: the Allow list, `OPTIONS` last. */
  allowed: string[]
  /** Which fallback answers (`routes/api.ts`'s or `routes/web.ts`'s), for `fallback`. */
  fallback: 'api' | 'web' | null
  /** Why the router refused the request itself (`bad_request`: malformed percent-encoding). */
  error: string | null
}

/** What explaining needs of a compiled route. */
export interface ExplainedRoute {
  method: RouteMethod
  path: string
  pattern: PathPattern
  where: ReadonlyMap<string, RegExp>
}

/** The app's routing, as `createApp` compiled it. */
export interface RoutingState<R extends ExplainedRoute & { description(): RouteDescription }> {
  table: RouteTable<R>
  /** In matching order. */
  routes: readonly R[]
  fallbackFor(path: string): 'api' | 'web' | undefined
}

/** `app.explain()`: the outcome by the calls `fetch` makes, and why the routes before the answer missed. */
export async function explainRoutes<R extends ExplainedRoute & { description(): RouteDescription }>(
  state: RoutingState<R>,
  rawMethod: string,
  rawPath: string,
): Promise<RoutingExplanation> {
  const method = rawMethod.toUpperCase()
  const path = requestPath(rawPath)
  const explanation: RoutingExplanation = { outcome: 'not_found', matched: null, candidates: [], allowed: [], fallback: null, error: null }
  let answered: R | undefined
  try {
    const match = method === 'OPTIONS' ? undefined : await state.table.find(method, path, path)
    if (match !== undefined) {
      answered = match.value
      const { middleware, handler, source } = answered.description()
      explanation.outcome = 'matched'
      explanation.matched = { method: answered.method, path: answered.path, params: match.params, middleware, handler, source }
    } else {
      const allowed = await state.table.allowedMethods(path, path)
      if (allowed.length > 0) {
        explanation.outcome = method === 'OPTIONS' ? 'options' : 'method_not_allowed'
        explanation.allowed = [...allowed, 'OPTIONS']
      } else {
        const fallback = state.fallbackFor(path)
        if (fallback !== undefined) {
          explanation.outcome = 'fallback'
          explanation.fallback = fallback
        }
      }
    }
  } catch (error) {
    if (!isHttpError(error)) throw error
    explanation.outcome = 'bad_request'
    explanation.error = error.message
  }
  explanation.candidates = missedRoutes(state.routes, method, path, answered)
  return explanation
}

const MAX_CANDIDATES = 15
const ORDER: Record<RouteMissReason, number> = { constraint: 0, method: 1, pattern: 2, prefix: 3 }

/** The path of a request written in a terminal (`/api/posts/café?x=1`) as a URL carries it (`/api/posts/caf%C3%A9`). */
export function requestPath(path: string): string {
  return new URL(path.startsWith('/') ? path : `/${path}`, 'http://explain.invalid').pathname
}

/**
 * Why each route before `answered` (all of them when none answered) did not
 * take `method path`; the closest first, at most fifteen.
 */
export function missedRoutes(routes: readonly ExplainedRoute[], method: string, path: string, answered: ExplainedRoute | undefined): RouteCandidate[] {
  const requestSegments = leadingSegments(path)
  const firstSegment = path.split('/')[1]
  const candidates: RouteCandidate[] = []
  for (const route of routes) {
    if (route === answered) break
    const candidate = miss(route, method, path, requestSegments, firstSegment)
    if (candidate !== undefined) candidates.push(candidate)
  }
  return candidates.sort((a, b) => ORDER[a.reason] - ORDER[b.reason]).slice(0, MAX_CANDIDATES)
}

function miss(route: ExplainedRoute, method: string, path: string, requestSegments: string[], firstSegment: string | undefined): RouteCandidate | undefined {
  const { pattern } = route
  const found = pattern.regex.exec(path)
  if (found === null) {
    if (route.path.split('/')[1] !== firstSegment) return undefined
    const differs = pattern.staticPrefix.findIndex((segment, i) => requestSegments[i] !== segment)
    if (differs === -1) return { method: route.method, path: route.path, reason: 'pattern', detail: patternDetail(route.path, path) }
    // Shown only when the prefix is the one difference (/api/v2/posts for /api/v1/posts).
    const segments = path.split('/')
    segments[differs + 1] = pattern.staticPrefix[differs]!
    if (!pattern.regex.test(segments.join('/'))) return undefined
    return {
      method: route.method,
      path: route.path,
      reason: 'prefix',
      detail: `prefix /${pattern.staticPrefix.join('/')} does not match: segment ${differs + 1} is "${requestSegments[differs] ?? '(none)'}", not "${pattern.staticPrefix[differs]}"`,
    }
  }
  for (const [name, constraint] of route.where) {
    const raw = found.groups?.[name]
    if (raw === undefined) continue
    const value = safeDecode(raw)
    if (!constraint.test(value)) {
      return { method: route.method, path: route.path, reason: 'constraint', detail: `{${name}}: "${value}" does not match /${unanchorConstraint(constraint.source)}/` }
    }
  }
  const answers = route.method === 'ANY' || route.method === method || (method === 'HEAD' && route.method === 'GET')
  if (answers || method === 'OPTIONS') return undefined
  return { method: route.method, path: route.path, reason: 'method', detail: `answers ${route.method}, not ${method}` }
}

function patternDetail(routePath: string, path: string): string {
  const routeSegments = parseSegments(routePath)
  const pathSegments = path.split('/').filter(Boolean)
  for (let i = 0; i < routeSegments.length; i++) {
    const segment = routeSegments[i]!
    if (segment.kind === 'param') continue
    if (pathSegments[i] !== segment.value) return `segment ${i + 1} is "${pathSegments[i] ?? '(none)'}", the route needs "${segment.value}"`
  }
  const required = routeSegments.filter((segment) => segment.kind === 'static' || !segment.optional).length
  return `the path has ${pathSegments.length} segment(s), the route takes ${required === routeSegments.length ? required : `${required} to ${routeSegments.length}`}`
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value)
  } catch {
    return value
  }
}
