/** Percentiles and per-endpoint aggregates over trace rows (log:stats, log:top). */
import type { TraceRow } from '../../framework/trace/index.ts'
import { NO_ROUTE, type EndpointPathJson, type EndpointStatsJson, type StatsBucketJson, type StatusClassCountsJson } from '../contract/traces.ts'

/** Nearest-rank percentile of sorted values; 0 for none. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0
  const rank = Math.ceil((p / 100) * sorted.length)
  return round(sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!)
}

export interface Latencies {
  min: number
  p50: number
  p95: number
  max: number
  mean: number
}

/** The spread of some durations in ms, rounded (`t --loop`, benchmark); zeros for none. */
export function latencies(times: readonly number[]): Latencies {
  const sorted = [...times].sort((a, b) => a - b)
  const mean = sorted.length === 0 ? 0 : sorted.reduce((sum, time) => sum + time, 0) / sorted.length
  return { min: round(sorted[0] ?? 0), p50: percentile(sorted, 50), p95: percentile(sorted, 95), max: round(sorted.at(-1) ?? 0), mean: round(mean) }
}

export function round(value: number): number {
  return Math.round(value * 1000) / 1000
}

export function statusClasses(rows: readonly TraceRow[]): StatusClassCountsJson {
  const counts: StatusClassCountsJson = { '1xx': 0, '2xx': 0, '3xx': 0, '4xx': 0, '5xx': 0 }
  for (const row of rows) {
    const key = `${Math.floor(Number(row.status_code) / 100)}xx` as keyof StatusClassCountsJson
    if (key in counts) counts[key]++
  }
  return counts
}

/** The paths an unmatched entry names, most frequent first. */
const TOP_PATHS = 5

/**
 * One entry per method and route pattern, slowest p95 first. The requests
 * that matched no route make one entry per method (`NO_ROUTE`, with their
 * most frequent paths): a scan of random paths would otherwise make a row
 * per path and bury the app's routes.
 */
export function endpointStats(rows: readonly TraceRow[]): EndpointStatsJson[] {
  const groups = new Map<string, { method: string; route: string; durations: number[]; errors: number; paths: Map<string, number> | null }>()
  for (const row of rows) {
    const route = row.route ?? NO_ROUTE
    const key = `${row.method} ${route}`
    let group = groups.get(key)
    if (group === undefined) groups.set(key, (group = { method: row.method, route, durations: [], errors: 0, paths: row.route === null ? new Map() : null }))
    group.durations.push(Number(row.duration_ms))
    if (Number(row.status_code) >= 500) group.errors++
    group.paths?.set(row.path, (group.paths.get(row.path) ?? 0) + 1)
  }
  return [...groups.values()]
    .map(({ method, route, durations, errors, paths }) => {
      const sorted = durations.sort((a, b) => a - b)
      return {
        method,
        route,
        count: sorted.length,
        errors,
        avg_ms: round(sorted.reduce((sum, d) => sum + d, 0) / sorted.length),
        p95_ms: percentile(sorted, 95),
        max_ms: round(sorted[sorted.length - 1]!),
        paths: paths === null ? null : topPaths(paths),
      }
    })
    .sort((a, b) => b.p95_ms - a.p95_ms || b.count - a.count)
}

function topPaths(counts: Map<string, number>): EndpointPathJson[] {
  return [...counts]
    .map(([path, count]) => ({ path, count }))
    .sort((a, b) => b.count - a.count || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    .slice(0, TOP_PATHS)
}

/** The route cell of a human table: an unmatched entry also names its most frequent paths. */
export function routeCell(entry: EndpointStatsJson): string {
  if (entry.paths === null || entry.paths.length === 0) return entry.route
  const more = entry.count - entry.paths.reduce((sum, path) => sum + path.count, 0)
  return `${entry.route}: ${entry.paths.map((path) => `${path.path} (${path.count})`).join(', ')}${more > 0 ? `, ${more} more` : ''}`
}

const MINUTE = 60_000
const BUCKETS = [MINUTE, 5 * MINUTE, 15 * MINUTE, 60 * MINUTE, 6 * 60 * MINUTE, 24 * 60 * MINUTE]
const MAX_BUCKETS = 60

/** p50/p95 and errors per bucket of time, the bucket the smallest that spans the rows' time in at most 60. */
export function timeline(rows: readonly TraceRow[]): { bucket_ms: number; buckets: StatsBucketJson[] } {
  if (rows.length === 0) return { bucket_ms: MINUTE, buckets: [] }
  let first = Number.POSITIVE_INFINITY
  let last = Number.NEGATIVE_INFINITY
  for (const row of rows) {
    first = Math.min(first, Number(row.started_at))
    last = Math.max(last, Number(row.started_at))
  }
  const size = BUCKETS.find((ms) => Math.floor(last / ms) - Math.floor(first / ms) < MAX_BUCKETS) ?? BUCKETS.at(-1)!
  const groups = new Map<number, { durations: number[]; errors: number }>()
  for (const row of rows) {
    const start = Math.floor(Number(row.started_at) / size) * size
    let group = groups.get(start)
    if (group === undefined) groups.set(start, (group = { durations: [], errors: 0 }))
    group.durations.push(Number(row.duration_ms))
    if (Number(row.status_code) >= 500) group.errors++
  }
  const buckets = [...groups.entries()]
    .sort(([a], [b]) => a - b)
    .map(([start, { durations, errors }]) => {
      const sorted = durations.sort((a, b) => a - b)
      return { start: new Date(start).toISOString(), count: sorted.length, errors, p50_ms: percentile(sorted, 50), p95_ms: percentile(sorted, 95) }
    })
  return { bucket_ms: size, buckets }
}
