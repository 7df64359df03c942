/**
 * The trace filters, declared once and shared by every command that searches
 * (log:trace, trace:list, log:export, log:tail, log:slow, log:stats...), so
 * that a filter behaves the same everywhere.
 */
import { statusRanges, type TraceFilter } from '../../framework/trace/index.ts'
import type { TraceFiltersJson } from '../contract/traces.ts'
import { CliError } from '../output/cli-error.ts'
import { intOption } from '../output/args.ts'

export const traceFilterArgs = {
  path: { type: 'string', description: 'Path contains this text, or matches this glob (/api/*/posts/*)', valueHint: 'text|glob' },
  status: { type: 'string', description: 'Status or class, comma-separated: 401, 4xx, 401,5xx', valueHint: 'code' },
  method: { type: 'string', description: 'HTTP method', valueHint: 'GET' },
  ip: { type: 'string', description: 'Client address', valueHint: 'address' },
  error: { type: 'boolean', description: 'Only failed requests (5xx: every unexpected exception)', default: false },
  since: { type: 'string', description: 'Newer than: 45s, 30m, 1h, 2d, 1w, or an ISO date', valueHint: 'age' },
  days: { type: 'string', description: 'Newer than N days', valueHint: 'n' },
  slow: { type: 'string', description: 'At least this many ms (alone: TRACE_SLOW_MS)', valueHint: 'ms' },
  limit: { type: 'string', description: 'At most N traces (default 50)', valueHint: 'n' },
} as const

export interface FilterArgs {
  path?: string
  status?: string
  method?: string
  ip?: string
  error?: boolean
  since?: string
  days?: string
  slow?: string
  limit?: string
  [other: string]: unknown
}

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }

/** `30m` => milliseconds; throws a CliError naming the option. */
export function parseAge(option: string, text: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(s|m|h|d|w)$/.exec(text.trim())
  if (match === null) {
    throw new CliError('E_BAD_OPTION', `--${option} takes an age such as 45s, 30m, 1h, 2d or 1w, got "${text}"`)
  }
  return Number(match[1]) * UNITS[match[2]!]!
}

/**
 * An option that may be given alone (`--slow`) or with a value (`--slow=300`).
 * citty reads `--slow --json` as slow="--json": give the next flag back.
 */
export function optionalValue(args: Record<string, unknown>, name: string): string | undefined {
  const value = args[name]
  if (value === undefined || value === false) return undefined
  if (value === true) return ''
  const text = String(value)
  if (text.startsWith('--')) {
    const flag = text.slice(2)
    if (flag.startsWith('no-')) args[flag.slice(3)] = false
    else args[flag] = true
    return ''
  }
  return text
}

export function parseFilters(args: FilterArgs, slowDefault: number, now = Date.now()): { filter: TraceFilter; echo: TraceFiltersJson } {
  const slowText = optionalValue(args, 'slow')
  const limit = intOption('limit', args.limit, 50, 1)
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
  }
  if (args.path) filter.path = args.path
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
  if (args.days !== undefined && args.days !== '') {
    const days = Number(args.days)
    if (!(days > 0)) throw new CliError('E_BAD_OPTION', `--days takes a positive number, got "${args.days}"`)
    echo.days = days
    const from = now - days * 86_400_000
    since = since === undefined ? from : Math.max(since, from)
  }
  if (since !== undefined) filter.sinceMs = since
  if (slowText !== undefined) {
    const ms = slowText === '' ? slowDefault : Number(slowText)
    if (!(ms >= 0)) throw new CliError('E_BAD_OPTION', `--slow takes milliseconds, got "${slowText}"`)
    filter.minDurationMs = ms
    echo.slow_ms = ms
  }
  return { filter, echo }
}
