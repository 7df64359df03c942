import { defineCommand } from '../../command/define.ts'
import type { StatsJson } from '../../contract/traces.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { colors, printLine, table } from '../../output/print.ts'
import { loadConfig } from '../../project/load-app.ts'
import { projectFor } from '../../project/project.ts'
import { positiveDays } from '../../trace/filters.ts'
import { openTraceStoreToRead } from '../../trace/open-store.ts'
import { endpointStats, percentile, round, routeCell, statusClasses, timeline } from '../../trace/stats.ts'
import { formatMs } from '../../trace/summary.ts'

export default defineCommand({
  meta: { name: 'log:stats', group: 'Debug and logs', description: 'Counts by status class, error rate, latency percentiles, dropped traces', json: ['StatsJson'] },
  args: {
    ...cwdArg,
    ...jsonArg,
    days: { type: 'number', description: 'Over the last N days (more than 0)', valueHint: 'n', default: 7 },
  },
  async run({ args, io, json: print }) {
    const project = projectFor(io, args.cwd)
    const days = positiveDays(args.days)
    const store = await openTraceStoreToRead(io, project, loadConfig(project))
    let json: StatsJson
    try {
      const rows = await store.search({ sinceMs: Date.now() - days * 86_400_000 })
      const durations = rows.map((row) => Number(row.duration_ms)).sort((a, b) => a - b)
      const errors = rows.filter((row) => Number(row.status_code) >= 500 || Number(row.error) === 1).length
      const overTime = timeline(rows)
      json = {
        days,
        total: rows.length,
        by_status: statusClasses(rows),
        error_rate: rows.length === 0 ? 0 : round(errors / rows.length),
        p50_ms: percentile(durations, 50),
        p95_ms: percentile(durations, 95),
        p99_ms: percentile(durations, 99),
        slowest_routes: endpointStats(rows).slice(0, 5),
        dropped: await store.droppedCount(),
        n_plus_one: rows.filter((row) => Number(row.n_plus_one) > 0).length,
        bucket_ms: overTime.bucket_ms,
        timeline: overTime.buckets,
      }
    } finally {
      store.close()
    }
    if (args.json) return print(json)
    const color = colors(io)
    printLine(io, color.bold(`Traces of the last ${days} day(s): ${json.total}`))
    printLine(io, `  by status   ${Object.entries(json.by_status).map(([k, v]) => `${k} ${v}`).join('   ')}`)
    printLine(io, `  error rate  ${(json.error_rate * 100).toFixed(1)}%`)
    printLine(io, `  latency     p50 ${formatMs(json.p50_ms)}   p95 ${formatMs(json.p95_ms)}   p99 ${formatMs(json.p99_ms)}`)
    printLine(io, `  N+1         ${json.n_plus_one} request(s) with findings`)
    printLine(io, `  dropped     ${json.dropped} trace(s) (writer buffer full)`)
    if (json.slowest_routes.length > 0) {
      printLine(io)
      printLine(io, color.bold('Slowest routes'))
      printLine(io, table(json.slowest_routes.map((e) => [e.method, routeCell(e), String(e.count), formatMs(e.p95_ms), formatMs(e.max_ms)]), ['METHOD', 'ROUTE', 'COUNT', 'P95', 'MAX']))
    }
  },
})
