/**
 * Compiles the spec's path syntax (`/posts/{id}`, `/archive/{year?}`) into the
 * regular expression stored in itty-router's route table, escaping static
 * segments so that `.` or `+` in a path mean themselves.
 */
import type { RouteParam } from './types.ts'

export interface PathPattern {
  regex: RegExp
  params: Array<Omit<RouteParam, 'pattern'>>
  /** Leading static segments (at most BUCKET_DEPTH): the key of the route's table bucket. */
  staticPrefix: string[]
}

export class RouteDefinitionError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'RouteDefinitionError'
  }
}

const PARAM = /^\{([A-Za-z_][A-Za-z0-9_]*)(\?)?\}$/
// Four, not two: with version groups every route starts /api/v<n>, and two segments would put them all in one bucket.
export const BUCKET_DEPTH = 4

export function joinPaths(...parts: string[]): string {
  const segments = parts.flatMap((part) => part.split('/')).filter((segment) => segment !== '')
  return `/${segments.join('/')}`
}

export function compilePath(path: string): PathPattern {
  const segments = path.split('/').filter((segment) => segment !== '')
  const params: PathPattern['params'] = []
  const staticPrefix: string[] = []
  let source = ''
  let sawParam = false

  for (const segment of segments) {
    const param = PARAM.exec(segment)
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
  let start = 1
  while (segments.length < BUCKET_DEPTH && start <= pathname.length) {
    let end = pathname.indexOf('/', start)
    if (end === -1) end = pathname.length
    if (end > start) segments.push(pathname.slice(start, end))
    start = end + 1
  }
  return segments
}

function encodeSegment(segment: string): string {
  // Request paths arrive percent-encoded; a literal "café" segment must match "caf%C3%A9".
  return /^[\x21-\x7e]*$/.test(segment) ? segment : encodeURIComponent(segment)
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
