import { defineCommand } from '../../command/define.ts'
import type { TopJson } from '../../contract/traces.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { printLine, table } from '../../output/print.ts'
import { loadConfig } from '../../project/load-app.ts'
import { projectFor } from '../../project/project.ts'
import { positiveDays } from '../../trace/filters.ts'
import { openTraceStoreToRead } from '../../trace/open-store.ts'
import { endpointStats, routeCell } from '../../trace/stats.ts'
import { formatMs } from '../../trace/summary.ts'

export default defineCommand({
  meta: { name: 'log:top', group: 'Debug and logs', description: 'Slowest endpoints by route, with counts and p95', json: ['TopJson'] },
  args: {
    ...cwdArg,
    ...jsonArg,
    days: { type: 'number', description: 'Over the last N days (more than 0)', valueHint: 'n', default: 7 },
    limit: { type: 'number', description: 'At most N endpoints', valueHint: 'n', integer: true, min: 1, default: 10 },
  },
  async run({ args, io, json: print }) {
    const project = projectFor(io, args.cwd)
    const days = positiveDays(args.days)
    const limit = args.limit
    const store = await openTraceStoreToRead(io, project, loadConfig(project))
    let json: TopJson
    try {
      const rows = await store.search({ sinceMs: Date.now() - days * 86_400_000 })
      json = { days, endpoints: endpointStats(rows).slice(0, limit) }
    } finally {
      store.close()
    }
    if (args.json) return print(json)
    if (json.endpoints.length === 0) return printLine(io, 'No traces in that period.')
    printLine(
      io,
      table(
        json.endpoints.map((e) => [e.method, routeCell(e), String(e.count), String(e.errors), formatMs(e.avg_ms), formatMs(e.p95_ms), formatMs(e.max_ms)]),
        ['METHOD', 'ROUTE', 'COUNT', '5XX', 'AVG', 'P95', 'MAX'],
      ),
    )
  },
})
