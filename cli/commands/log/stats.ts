import { defineCommand } from 'citty'
import type { StatsJson } from '../../contract/traces.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { CliError } from '../../output/cli-error.ts'
import { color, printJson, printLine, table } from '../../output/print.ts'
import { loadConfig } from '../../project/load-app.ts'
import { findProject } from '../../project/project.ts'
import { openProjectTraceStore } from '../../trace/open-store.ts'
import { endpointStats, percentile, round, statusClasses } from '../../trace/stats.ts'
import { formatMs } from '../../trace/summary.ts'

export function daysOption(value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback
  const days = Number(value)
  if (!(days > 0)) throw new CliError('E_BAD_OPTION', `--days takes a positive number, got "${value}"`)
  return days
}

export default defineCommand({
  args: {
    ...cwdArg,
    ...jsonArg,
    days: { type: 'string', description: 'Over the last N days (default 7)', valueHint: 'n' },
  },
  async run({ args }) {
    const project = findProject(args.cwd)
    const days = daysOption(args.days, 7)
    const store = await openProjectTraceStore(project, loadConfig(project))
    let json: StatsJson
    try {
      const rows = await store.search({ sinceMs: Date.now() - days * 86_400_000 })
      const durations = rows.map((row) => Number(row.duration_ms)).sort((a, b) => a - b)
      const errors = rows.filter((row) => Number(row.status_code) >= 500 || Number(row.error) === 1).length
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
      }
    } finally {
      store.close()
    }
    if (args.json) return printJson(json)
    printLine(color.bold(`Traces of the last ${days} day(s): ${json.total}`))
    printLine(`  by status   ${Object.entries(json.by_status).map(([k, v]) => `${k} ${v}`).join('   ')}`)
    printLine(`  error rate  ${(json.error_rate * 100).toFixed(1)}%`)
    printLine(`  latency     p50 ${formatMs(json.p50_ms)}   p95 ${formatMs(json.p95_ms)}   p99 ${formatMs(json.p99_ms)}`)
    printLine(`  N+1         ${json.n_plus_one} request(s) with findings`)
    printLine(`  dropped     ${json.dropped} trace(s) (writer buffer full)`)
    if (json.slowest_routes.length > 0) {
      printLine('', )
      printLine(color.bold('Slowest routes'))
      printLine(table(json.slowest_routes.map((e) => [e.method, e.route, String(e.count), formatMs(e.p95_ms), formatMs(e.max_ms)]), ['METHOD', 'ROUTE', 'COUNT', 'P95', 'MAX']))
    }
  },
})
