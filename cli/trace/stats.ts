/** Percentiles and per-endpoint aggregates over trace rows (log:stats, log:top). */
import type { TraceRow } from '../../framework/trace/index.ts'
import type { EndpointStatsJson, StatusClassCountsJson } from '../contract/traces.ts'

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

/** One entry per method and route pattern (the path when no route matched), slowest p95 first. */
export function endpointStats(rows: readonly TraceRow[]): EndpointStatsJson[] {
  const groups = new Map<string, { method: string; route: string; durations: number[]; errors: number }>()
  for (const row of rows) {
    const route = row.route ?? row.path
    const key = `${row.method} ${route}`
    let group = groups.get(key)
    if (group === undefined) groups.set(key, (group = { method: row.method, route, durations: [], errors: 0 }))
    group.durations.push(Number(row.duration_ms))
    if (Number(row.status_code) >= 500) group.errors++
  }
  return [...groups.values()]
    .map(({ method, route, durations, errors }) => {
      const sorted = durations.sort((a, b) => a - b)
      return {
        method,
        route,
        count: sorted.length,
        errors,
        avg_ms: round(sorted.reduce((sum, d) => sum + d, 0) / sorted.length),
        p95_ms: percentile(sorted, 95),
        max_ms: round(sorted[sorted.length - 1]!),
      }
    })
    .sort((a, b) => b.p95_ms - a.p95_ms || b.count - a.count)
}
