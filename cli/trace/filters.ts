/**
 * The trace filters, declared once and shared by every command that searches
 * (log:trace, trace:list, log:export, log:tail, log:slow, log:stats...), so
 * that a filter behaves the same everywhere.
 */
import { statusRanges, type TraceFilter } from '../../framework/trace/index.ts'
import { bracedParams } from '../../framework/router/path-grammar.ts'
import { ROUTE_METHODS } from '../../framework/router/types.ts'
import type { TraceFiltersJson } from '../contract/traces.ts'
import type { ArgsDef, ParsedArgs } from '../command/define.ts'
import { CliError } from '../output/cli-error.ts'

const DEFAULT_LIMIT = 50

export const traceFilterArgs = {
  path: { type: 'string', description: 'Path contains this text, or matches this glob (* one segment, ** any: /api/*/posts/**)', valueHint: 'text|glob' },
  status: { type: 'string', description: 'Status or class, comma-separated: 401, 4xx, 401,5xx', valueHint: 'code' },
  method: { type: 'string', description: 'HTTP method, or several, comma-separated: GET,HEAD', valueHint: 'GET' },
  ip: { type: 'string', description: 'Client address', valueHint: 'address' },
  error: { type: 'boolean', description: 'Only failed requests (5xx: every unexpected exception)' },
  since: { type: 'string', description: 'Newer than: an age (45s, 30m, 1h, 2d, 1w) or a date and time (2026-11-27 21:47:20: UTC unless it gives a zone)', valueHint: 'age' },
  days: { type: 'number', description: 'Newer than N days (more than 0)', valueHint: 'n' },
  slow: { type: 'number', description: 'At least this many ms (alone: TRACE_SLOW_MS)', valueHint: 'ms', min: 0, valueOptional: true },
  // No declared default: a trace id with --limit is refused (refuseFiltersWithId), so it must be told from no --limit.
  limit: { type: 'number', description: `At most N traces (default ${DEFAULT_LIMIT})`, valueHint: 'n', integer: true, min: 1 },
} as const satisfies ArgsDef

/** Only for the lists (trace:list, log:trace without an id): paths to leave out, as the editor's Traces view does with /health/*. */
export const ignoreArg = {
  ignore: { type: 'string', description: 'Leave out paths containing this text or matching this glob (/health/*, /static/**)', valueHint: 'text|glob', multiple: true },
} as const satisfies ArgsDef

/**
 * Only for the lists: the traces one route answered, by its pattern as
 * route:list prints it. The editor's Traces view of a route asks with it, so
 * that "Load more" pages through that route's traces alone (a path glob also
 * catches a static sibling, /posts/archive beside /posts/{id}).
 */
export const routeArg = {
  route: { type: 'string', description: 'Only traces this route answered, by its pattern as route:list prints it (/api/v1/posts/{id})', valueHint: 'pattern' },
} as const satisfies ArgsDef

/** Only for the lists: the traces that emitted an event, by its class name, as log:trace shows it under Events. */
export const eventArg = {
  event: { type: 'string', description: 'Only traces that emitted this event, by its class name (TaskCreated), as log:trace shows it', valueHint: 'class' },
} as const satisfies ArgsDef

/** The filters as a command received them (any of them may be left out). */
export type FilterArgs = Partial<ParsedArgs<typeof traceFilterArgs & typeof ignoreArg & typeof routeArg & typeof eventArg>>

/**
 * A pattern written with a query string (`/search?q=x`) would match no path
 * (`?` is one character there, and the query is stored apart): refused, not
 * left to find nothing.
 */
function checkPathPattern(option: string, pattern: string): void {
  const query = /\?[^/]*=/.exec(pattern)
  if (query === null) return
  throw new CliError('E_BAD_OPTION', `${option} matches the path alone, without its query string, and "${pattern}" has one ("${pattern.slice(query.index)}")`, {
    hint: `leave out "${pattern.slice(query.index)}": ${option} '${pattern.slice(0, query.index)}' (in a pattern, ? is any one character)`,
  })
}

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }

/** `30m` => milliseconds, undefined when the text is no age. */
export function parseAge(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*(s|m|h|d|w)$/.exec(text.trim())
  return match === null ? undefined : Number(match[1]) * UNITS[match[2]!]!
}

/** `2026-11-27`, `2026-11-27 21:47:20`, `2026-11-27T21:47:20.5`, each with an optional zone (`Z`, `+01:00`, `-0800`). */
const DATE_TIME = /^(\d{4}-\d\d-\d\d)(?:[T ](\d\d:\d\d(?::\d\d(?:\.\d+)?)?))?\s*(Z|[+-]\d\d(?::?\d\d)?)?$/i

/**
 * A date and time => epoch ms, undefined when the text is no date. Without a
 * zone it is UTC, as every time the trace commands print is (a time copied
 * from `trace:list` finds that trace, whatever the machine's TZ); a date alone
 * is its midnight, UTC. An impossible date (2026-02-30) is no date.
 */
export function parseDateTime(text: string): number | undefined {
  const match = DATE_TIME.exec(text.trim())
  if (match === null) return undefined
  const [, date, time = '00:00', zone = 'Z'] = match
  const offset = zone.toUpperCase() === 'Z' ? 'Z' : zone.length === 3 ? `${zone}:00` : `${zone.slice(0, 3)}:${zone.slice(-2)}`
  const ms = Date.parse(`${date}T${time}${offset}`)
  if (Number.isNaN(ms)) return undefined
  // Date.parse rolls 2026-02-30 over to March 2nd: the day must survive the round trip.
  const [year, month, day] = date!.split('-').map(Number) as [number, number, number]
  const check = new Date(Date.UTC(year, month - 1, day))
  return check.getUTCMonth() === month - 1 && check.getUTCDate() === day ? ms : undefined
}

/** `--since`: an age back from `now`, or a date and time (UTC unless it says otherwise). */
export function parseSince(text: string, now = Date.now()): number {
  const date = parseDateTime(text)
  if (date !== undefined) return date
  const age = parseAge(text)
  if (age !== undefined) return now - age
  throw new CliError(
    'E_BAD_OPTION',
    `--since takes an age (45s, 30m, 1h, 2d, 1w) or a date and time (2026-11-27, 2026-11-27 21:47:20, 2026-11-27T21:47:20+01:00; UTC unless it gives a zone), got "${text}"`,
  )
}

// RFC 9110's token: what a method may be spelled with. A space means a list written without commas.
const METHOD_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
/** The methods svc's own routes answer; a client may send any other token, and its trace is kept as well. */
export const ANSWERED_METHODS: readonly string[] = [...ROUTE_METHODS, 'HEAD', 'OPTIONS']

/** `--method` upper-cased, refused when one of its names cannot be a method (`GET POST`, `GET;`). */
function checkMethods(text: string): string {
  const methods = text.split(',').map((method) => method.trim())
  const bad = methods.filter((method) => !METHOD_TOKEN.test(method))
  if (bad.length > 0) {
    throw new CliError('E_BAD_OPTION', `--method takes method names separated by commas (GET,HEAD), got "${text}"`, {
      hint: `${bad.map((method) => `"${method}"`).join(', ')} cannot be an HTTP method`,
    })
  }
  return methods.join(',').toUpperCase()
}

/** Methods of `--method` that no svc route answers (a typo, most often): said beside an empty result. */
export function unansweredMethods(method: string | null): string[] {
  if (method === null) return []
  return method.split(',').filter((name) => !ANSWERED_METHODS.includes(name))
}

/** The filter options a command was given (those a search applies), as written on the command line. */
export function givenFilters(args: FilterArgs): string[] {
  const given: string[] = []
  for (const name of ['path', 'route', 'event', 'status', 'method', 'ip', 'since'] as const) if (args[name] !== undefined && args[name] !== '') given.push(`--${name}`)
  if (args.error === true) given.push('--error')
  for (const name of ['days', 'slow', 'limit'] as const) if (args[name] !== undefined) given.push(`--${name}`)
  if (args.ignore !== undefined && args.ignore.length > 0) given.push('--ignore')
  return given
}

/**
 * A trace id names one trace: filters beside it would either be ignored
 * (the trace shown whatever they say) or select nothing. Refused, naming them.
 */
export function refuseFiltersWithId(args: FilterArgs, command: string): void {
  const given = givenFilters(args)
  if (given.length === 0) return
  throw new CliError('E_BAD_OPTION', `${given.join(', ')} ${given.length === 1 ? 'selects' : 'select'} the traces of a search, and a trace id names one trace: give one or the other`, {
    hint: `leave out the id to search with ${given.join(', ')}, or leave out ${given.length === 1 ? 'that option' : 'those options'} to see the trace (svc ${command} <id>)`,
  })
}

export function parseFilters(args: FilterArgs, slowDefault: number, now = Date.now()): { filter: TraceFilter; echo: TraceFiltersJson } {
  const limit = args.limit ?? DEFAULT_LIMIT
  const filter: TraceFilter = { limit }
  const echo: TraceFiltersJson = {
    path: args.path ?? null,
    status: args.status ?? null,
    method: args.method?.toUpperCase() ?? null,
    ip: args.ip ?? null,
    error: args.error === true,
    since: args.since ?? null,
    days: null,
    slow_ms: null,
    limit,
    ignore: args.ignore ?? [],
    route: args.route ?? null,
    event: args.event ?? null,
  }
  if (args.path) {
    checkPathPattern('--path', args.path)
    filter.path = args.path
  }
  if (args.ignore !== undefined && args.ignore.length > 0) {
    for (const pattern of args.ignore) checkPathPattern('--ignore', pattern)
    filter.ignore = args.ignore
  }
  if (args.status) {
    try {
      statusRanges(args.status)
    } catch (error) {
      throw new CliError('E_BAD_OPTION', `--status: ${(error as Error).message.replace(/^status filter: /, '')}`)
    }
    filter.status = args.status
  }
  if (args.method) filter.method = echo.method = checkMethods(args.method)
  if (args.route) {
    checkRoutePattern(args.route)
    filter.route = args.route
  }
  if (args.event) filter.event = args.event
  if (args.ip) filter.ip = args.ip
  if (args.error) filter.error = true
  let since = args.since ? parseSince(args.since, now) : undefined
  if (args.days !== undefined) {
    const days = positiveDays(args.days)
    echo.days = days
    const from = now - days * 86_400_000
    since = since === undefined ? from : Math.max(since, from)
  }
  if (since !== undefined) filter.sinceMs = since
  if (args.slow !== undefined) {
    const ms = args.slow === true ? slowDefault : args.slow
    filter.minDurationMs = ms
    echo.slow_ms = ms
  }
  return { filter, echo }
}

/**
 * `--route` compares the pattern exactly, so a pattern no route can have
 * selected nothing, silently: a parameter written as other routers write it
 * (`:id`), or a glob (that is `--path`).
 */
function checkRoutePattern(route: string): void {
  const braced = bracedParams(route)
  if (braced !== route) {
    throw new CliError('E_BAD_OPTION', `--route takes a route's pattern as route:list prints it, its parameters in braces, got "${route}"`, { hint: `--route '${braced}'` })
  }
  if (/[*[]/.test(route)) {
    throw new CliError('E_BAD_OPTION', `--route matches one route's pattern exactly, and "${route}" is a glob`, {
      hint: `--path '${route}' selects the paths it matches; route:list prints the patterns`,
    })
  }
}

/** `--days`: more than 0 (newer than 0 days would select nothing); declared as a plain number so that -1 and 0 get this one message. */
export function positiveDays(days: number): number {
  if (!(days > 0)) throw new CliError('E_BAD_OPTION', `--days takes a number greater than 0, got "${days}"`)
  return days
}
