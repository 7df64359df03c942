/**
 * The trace filters, declared once and shared by every command that searches
 * (log:trace, trace:list, log:export, log:tail, log:slow, log:stats...), so
 * that a filter behaves the same everywhere.
 */
import { statusRanges, type TraceFilter } from '../../framework/trace/index.ts'
import type { TraceFiltersJson } from '../contract/traces.ts'
import type { ArgsDef, ParsedArgs } from '../command/define.ts'
import { CliError } from '../output/cli-error.ts'

export const traceFilterArgs = {
  path: { type: 'string', description: 'Path contains this text, or matches this glob (/api/*/posts/*)', valueHint: 'text|glob' },
  status: { type: 'string', description: 'Status or class, comma-separated: 401, 4xx, 401,5xx', valueHint: 'code' },
  method: { type: 'string', description: 'HTTP method', valueHint: 'GET' },
  ip: { type: 'string', description: 'Client address', valueHint: 'address' },
  error: { type: 'boolean', description: 'Only failed requests (5xx: every unexpected exception)' },
  since: { type: 'string', description: 'Newer than: 45s, 30m, 1h, 2d, 1w, or an ISO date', valueHint: 'age' },
  days: { type: 'number', description: 'Newer than N days', valueHint: 'n', min: 0 },
  slow: { type: 'number', description: 'At least this many ms (alone: TRACE_SLOW_MS)', valueHint: 'ms', min: 0, valueOptional: true },
  limit: { type: 'number', description: 'At most N traces', valueHint: 'n', integer: true, min: 1, default: 50 },
} as const satisfies ArgsDef

/** Only for the lists (trace:list, log:trace without an id): paths to leave out, as the editor's Traces view does with /health/*. */
export const ignoreArg = {
  ignore: { type: 'string', description: 'Leave out paths containing this text or matching this glob (/health/*)', valueHint: 'text|glob', multiple: true },
} as const satisfies ArgsDef

/** The filters as a command received them (any of them may be left out). */
export type FilterArgs = Partial<ParsedArgs<typeof traceFilterArgs & typeof ignoreArg>>

/** The store's filter, and the paths a list leaves out. */
export type ListFilter = TraceFilter & { ignore?: string[] }

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }

/** `30m` => milliseconds; throws a CliError naming the option. */
export function parseAge(option: string, text: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(s|m|h|d|w)$/.exec(text.trim())
  if (match === null) {
    throw new CliError('E_BAD_OPTION', `--${option} takes an age such as 45s, 30m, 1h, 2d or 1w, got "${text}"`)
  }
  return Number(match[1]) * UNITS[match[2]!]!
}

export function parseFilters(args: FilterArgs, slowDefault: number, now = Date.now()): { filter: ListFilter; echo: TraceFiltersJson } {
  const limit = args.limit ?? 50
  const filter: ListFilter = { limit }
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
  }
  if (args.path) filter.path = args.path
  if (args.ignore !== undefined && args.ignore.length > 0) filter.ignore = args.ignore
  if (args.status) {
    try {
      statusRanges(args.status)
    } catch (error) {
      throw new CliError('E_BAD_OPTION', `--status: ${(error as Error).message.replace(/^status filter: /, '')}`)
    }
    filter.status = args.status
  }
  if (args.method) filter.method = args.method.toUpperCase()
  if (args.ip) filter.ip = args.ip
  if (args.error) filter.error = true
  let since: number | undefined
  if (args.since) {
    const date = /^\d{4}-\d\d-\d\d/.test(args.since) ? Date.parse(args.since) : NaN
    since = Number.isNaN(date) ? now - parseAge('since', args.since) : date
  }
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

/** `--days`: more than 0 (a declared number of at least 0; 0 itself means nothing here). */
export function positiveDays(days: number): number {
  if (!(days > 0)) throw new CliError('E_BAD_OPTION', `--days takes a positive number, got "${days}"`)
  return days
}
