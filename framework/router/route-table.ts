/**
 * The compiled route table. Matching is itty-router's: each bucket is an
 * IttyRouter whose table holds our compiled regexes. Buckets are keyed by
 * method and the leading static path segments (up to BUCKET_DEPTH), so a request is tested only
 * against routes that could match it (itty tests every route of a table in
 * turn; with 1,000 routes that would be 1,000 regexes a request).
 * Dispatch is itty's own `fetch`, given only the path so that it has no
 * query string to parse again. What itty answered for a path that matched a
 * route without parameters (`/hello`, `/health/live`) is kept and answered
 * again synchronously: such an answer depends on the path alone, and only
 * the spelling without trailing slashes is kept, one path per static route.
 */
import { IttyRouter, type IttyRouterType, type RouteEntry } from 'itty-router'
import { HttpError } from '../http/http-error.ts'
import { segmentEnd, type PathPattern } from './path-grammar.ts'
import { ROUTE_METHODS, type RouteMethod } from './types.ts'

export interface TableEntry<T> {
  method: RouteMethod
  pattern: PathPattern
  where: ReadonlyMap<string, RegExp>
  value: T
}

export interface RouteMatch<T> {
  value: T
  /** Decoded values; an optional parameter that was not given is absent. */
  params: Record<string, string>
}

interface BucketNode {
  router?: IttyRouterType
  children?: Map<string, BucketNode>
}

interface MatchRequest {
  method: string
  url: string
  params?: Record<string, string | undefined>
}

const ANY_METHOD_BUCKET = '*'
// itty parses `url`; the origin is irrelevant to matching, the path is the request's own.
const MATCH_ORIGIN = 'http://route.table'
const NO_MATCH: Promise<undefined> = Promise.resolve(undefined)
/** Paths remembered per method at most (one per static route; a bound all the same). */
const MAX_STATIC_ANSWERS = 10_000

export class RouteTable<T> {
  /** Per method, a tree of leading static segments; a node holds the bucket of its key, if there is one. */
  private readonly buckets = new Map<string, BucketNode>()
  /** Per bucket method, itty's answers for paths that matched a route without parameters. */
  private readonly staticAnswers = new Map<string, Map<string, T>>()

  constructor(entries: readonly TableEntry<T>[]) {
    const byPrefix = new Map<string, number[]>()
    entries.forEach((entry, index) => {
      const key = entry.pattern.staticPrefix.join('/')
      byPrefix.set(key, [...(byPrefix.get(key) ?? []), index])
    })
    for (const key of new Set(['', ...byPrefix.keys()])) {
      // A bucket holds the routes whose static prefix leads its key ('', 'api', 'api/posts'), in definition order.
      const segments = key === '' ? [] : key.split('/')
      const indices = segments
        .map((_, depth) => segments.slice(0, depth).join('/'))
        .concat(key)
        .flatMap((ancestor) => byPrefix.get(ancestor) ?? [])
        .sort((a, b) => a - b)
      for (const method of [...ROUTE_METHODS, ANY_METHOD_BUCKET]) {
        const members = indices.map((i) => entries[i]!).filter((e) => e.method === 'ANY' || e.method === method)
        if (members.length > 0) this.nodeFor(method, segments).router = this.bucket(method, members)
      }
    }
  }

  /**
   * The first route, in definition order, whose method, path and constraints match.
   * `pathname` is the URL's (percent-encoded); `url` is not read and stays for callers.
   * Synchronous for a path itty already matched to a route without parameters.
   */
  find(method: string, _url: string, pathname: string): RouteMatch<T> | Promise<RouteMatch<T> | undefined> {
    const bucketMethod = method === 'HEAD' ? 'GET' : (ROUTE_METHODS as readonly string[]).includes(method) ? method : ANY_METHOD_BUCKET
    const known = this.staticAnswers.get(bucketMethod)?.get(pathname)
    if (known !== undefined) return { value: known, params: {} }
    // From the method's root ('GET ') down the request's leading segments ('GET api/v1/posts'): the deepest bucket wins.
    // Segments are cut only while the tree goes deeper: most paths end their walk after one or two.
    let node = this.buckets.get(bucketMethod)
    let router = node?.router
    for (let start = 1; node?.children !== undefined && start < pathname.length; ) {
      const end = segmentEnd(pathname, start)
      if (end > start) {
        node = node.children.get(pathname.slice(start, end))
        if (node?.router !== undefined) router = node.router
      }
      start = end + 1
    }
    // itty's own promise, handed on as it is (one promise a request fewer than wrapping it).
    if (router !== undefined) return router.fetch({ method: 'GET', url: `${MATCH_ORIGIN}${pathname}` } as MatchRequest as never)
    return NO_MATCH
  }

  /** Methods under which the path exists, for 405's Allow header and OPTIONS. */
  async allowedMethods(url: string, pathname: string): Promise<string[]> {
    const allowed: string[] = []
    for (const method of ROUTE_METHODS) {
      if ((await this.find(method, url, pathname)) !== undefined) allowed.push(method)
    }
    if (allowed.includes('GET')) allowed.splice(1, 0, 'HEAD')
    return allowed
  }

  private rememberStatic(method: string, pathname: string, value: T): void {
    // Only the spelling without trailing slashes (routes tolerate any number): one path per static route.
    if (pathname.length > 1 && pathname.endsWith('/')) return
    let answers = this.staticAnswers.get(method)
    if (answers === undefined) this.staticAnswers.set(method, (answers = new Map()))
    if (answers.size < MAX_STATIC_ANSWERS) answers.set(pathname, value)
  }

  private nodeFor(method: string, segments: readonly string[]): BucketNode {
    let node: BucketNode | undefined = this.buckets.get(method)
    if (node === undefined) this.buckets.set(method, (node = {}))
    for (const segment of segments) {
      const children: Map<string, BucketNode> = (node.children ??= new Map())
      let child: BucketNode | undefined = children.get(segment)
      if (child === undefined) children.set(segment, (child = {}))
      node = child
    }
    return node
  }

  private bucket(method: string, members: TableEntry<T>[]): IttyRouterType {
    const router = IttyRouter()
    for (const entry of members) {
      // Per parameter, in path order: its name and its constraint, read by name from itty's groups (no walk of them).
      const params = entry.pattern.params.map(({ name }) => ({ name, constraint: entry.where.get(name) }))
      const isStatic = params.length === 0
      const matcher = (request: MatchRequest): RouteMatch<T> | undefined => {
        if (isStatic) {
          this.rememberStatic(method, request.url.slice(MATCH_ORIGIN.length), entry.value)
          return { value: entry.value, params: {} }
        }
        const groups = request.params ?? {}
        const decoded: Record<string, string> = {}
        for (let i = 0; i < params.length; i++) {
          const { name } = params[i]!
          const value = decodeParam(name, groups[name])
          if (value !== undefined) decoded[name] = value
        }
        // Constraints once every value is decoded: a malformed one is a 400 whichever parameter fails its constraint.
        for (let i = 0; i < params.length; i++) {
          const { name, constraint } = params[i]!
          const value = decoded[name]
          if (constraint !== undefined && value !== undefined && !constraint.test(value)) return undefined
        }
        return { value: entry.value, params: decoded }
      }
      // Every member was already filtered by method, so each bucket compares "GET".
      const routeEntry: RouteEntry = ['GET', entry.pattern.regex, [matcher as never], entry.pattern.regex.source]
      router.routes.push(routeEntry)
    }
    return router
  }
}

/** A parameter's decoded value; undefined for an optional one that was not given. */
function decodeParam(name: string, raw: string | undefined): string | undefined {
  if (raw === undefined || !raw.includes('%')) return raw
  try {
    return decodeURIComponent(raw)
  } catch {
    throw new HttpError(400, `Malformed percent-encoding in path parameter "${name}"`)
  }
}
