/**
 * The routing grammar, in one place: `{param}` and `{param?}` segments,
 * joining prefixes, the `/api` prefix of `routes/api.ts`, how a `where()`
 * constraint is anchored, and the regular expression a path compiles to
 * (static segments escaped, so `.` or `+` in a path mean themselves).
 *
 * It imports nothing: the framework, `api:why`, the language server and the
 * VS Code extension (bundled) all use this very module.
 */

/** Every route of `routes/api.ts` (and of a plugin's `api`) is under this prefix. */
export const API_PREFIX = '/api'

/** A parameter segment: `{name}` or `{name?}`; a name is letters, digits and `_`, not starting with a digit. */
export const PARAM_SEGMENT = /^\{([A-Za-z_][A-Za-z0-9_]*)(\?)?\}$/

// Four, not two: with version groups every route starts /api/v<n>, and two segments would put them all in one bucket.
export const BUCKET_DEPTH = 4

export class RouteDefinitionError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'RouteDefinitionError'
  }
}

export interface PathParam {
  name: string
  optional: boolean
}

export type PathSegment = { kind: 'static'; value: string } | ({ kind: 'param' } & PathParam)

export interface PathPattern {
  regex: RegExp
  params: PathParam[]
  /** Leading static segments (at most BUCKET_DEPTH), as in a request URL: the key of the route's table bucket. */
  staticPrefix: string[]
}

/** `joinPaths('/api', 'v1/', '/posts')` is `/api/v1/posts`: slashes around parts do not matter. */
export function joinPaths(...parts: string[]): string {
  const segments = parts.flatMap((part) => part.split('/')).filter((segment) => segment !== '')
  return `/${segments.join('/')}`
}

/** Whether a request path is under `/api` (`/api` itself included, `/apiary` not). */
export function isApiPath(path: string): boolean {
  return path === API_PREFIX || path.startsWith(`${API_PREFIX}/`)
}

/** The prefix a route file gives its routes: `/api` for `routes/api.ts`, none for `routes/web.ts`. */
export function routeFilePrefix(fileName: string): string {
  return /(^|[\\/])api\.[cm]?[jt]s$/.test(fileName) ? API_PREFIX : '/'
}

/** The segments of a route path as written, without checking them (`compilePath` checks). */
export function parseSegments(path: string): PathSegment[] {
  return path
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment): PathSegment => {
      const param = PARAM_SEGMENT.exec(segment)
      return param === null ? { kind: 'static', value: segment } : { kind: 'param', name: param[1]!, optional: param[2] === '?' }
    })
}

/** The parameter names of a route path, in order. */
export function paramNames(path: string): string[] {
  return parseSegments(path).flatMap((segment) => (segment.kind === 'param' ? [segment.name] : []))
}

/**
 * A `where()` constraint as the router tests it: always against the whole
 * value (a written `^...$` changes nothing), flags kept except `g` and `y`
 * (which would make `test()` stateful). Throws the RegExp's SyntaxError.
 */
export function anchorConstraint(pattern: RegExp | string, flags?: string): RegExp {
  const source = typeof pattern === 'string' ? pattern : pattern.source
  const given = flags ?? (typeof pattern === 'string' ? '' : pattern.flags)
  return new RegExp(`^(?:${source.replace(/^\^/, '').replace(/(?<!\\)\$$/, '')})$`, given.replace(/[gy]/g, ''))
}

/** The constraint as written, from an anchored source (`^(?:\d+)$` => `\d+`), for messages. */
export function unanchorConstraint(source: string): string {
  return source.replace(/^\^\(\?:/, '').replace(/\)\$$/, '')
}

/**
 * `/api/v1/posts/{id}` => `/api/v1/posts/*`: the `--path` glob of the trace
 * commands that matches the route's requests (`*` is one segment, as a
 * parameter is; an optional last parameter: `**` after the prefix, which
 * covers the path with it and without it).
 */
export function pathGlob(path: string): string {
  if (!path.includes('{')) return path
  return path.replace(/\/\{[A-Za-z_][A-Za-z0-9_]*\?\}$/, '**').replace(/\{[A-Za-z_][A-Za-z0-9_]*\}/g, '*')
}

/** A path written as other routers write parameters (`/posts/:id`, `:page?`) in svc's braces (`/posts/{id}`); other text is kept. */
export function bracedParams(path: string): string {
  return path.replace(/(^|\/):([A-Za-z_][A-Za-z0-9_]*)(\?)?(?=\/|$)/g, (_, slash: string, name: string, optional: string | undefined) => `${slash}{${name}${optional ?? ''}}`)
}

/** Checks a route path and compiles it to the regular expression of the route table. */
export function compilePath(path: string): PathPattern {
  const segments = path.split('/').filter((segment) => segment !== '')
  const params: PathParam[] = []
  const staticPrefix: string[] = []
  let source = ''
  let sawParam = false

  for (const segment of segments) {
    const param = PARAM_SEGMENT.exec(segment)
    if (param === null) {
      if (segment.includes('{') || segment.includes('}')) {
        throw new RouteDefinitionError(
          `Route ${path}: a parameter must be a whole segment written {name} or {name?}, got "${segment}"`,
        )
      }
      if (sawParam && params.at(-1)?.optional) {
        throw new RouteDefinitionError(`Route ${path}: optional parameters must come last`)
      }
      if (!sawParam && staticPrefix.length < BUCKET_DEPTH) staticPrefix.push(encodeSegment(segment))
      source += `/${escapeRegex(encodeSegment(segment))}`
      continue
    }
    const [, name, optionalMark] = param
    const optional = optionalMark === '?'
    if (params.some((p) => p.name === name)) throw new RouteDefinitionError(`Route ${path}: parameter {${name}} appears twice`)
    if (!optional && params.at(-1)?.optional) {
      throw new RouteDefinitionError(`Route ${path}: optional parameters must come last`)
    }
    sawParam = true
    params.push({ name: name!, optional })
    source += optional ? `(?:/(?<${name}>[^/]+))?` : `/(?<${name}>[^/]+)`
  }
  // A trailing slash is tolerated: /posts/ answers like /posts.
  return { regex: new RegExp(`^${source}/*$`), params, staticPrefix }
}

/** The segments of a request path used to pick a bucket (raw, as in the URL). */
export function leadingSegments(pathname: string): string[] {
  const segments: string[] = []
  for (let start = 1; segments.length < BUCKET_DEPTH && start < pathname.length; ) {
    const end = segmentEnd(pathname, start)
    if (end > start) segments.push(pathname.slice(start, end))
    start = end + 1
  }
  return segments
}

/** Where the segment starting at `start` ends (the next `/`, or the path's end); an empty segment ends where it starts. */
export function segmentEnd(pathname: string, start: number): number {
  const slash = pathname.indexOf('/', start)
  return slash === -1 ? pathname.length : slash
}

function encodeSegment(segment: string): string {
  // Request paths arrive percent-encoded; a literal "café" segment must match "caf%C3%A9".
  return /^[\x21-\x7e]*$/.test(segment) ? segment : encodeURIComponent(segment)
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
