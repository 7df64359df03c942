import { defineCommand } from 'citty'
import type { TopJson } from '../../contract/traces.ts'
import { cwdArg, intOption, jsonArg } from '../../output/args.ts'
import { printJson, printLine, table } from '../../output/print.ts'
import { loadConfig } from '../../project/load-app.ts'
import { findProject } from '../../project/project.ts'
import { openProjectTraceStore } from '../../trace/open-store.ts'
import { endpointStats } from '../../trace/stats.ts'
import { formatMs } from '../../trace/summary.ts'
import { daysOption } from './stats.ts'

export default defineCommand({
  args: {
    ...cwdArg,
    ...jsonArg,
    days: { type: 'string', description: 'Over the last N days (default 7)', valueHint: 'n' },
    limit: { type: 'string', description: 'At most N endpoints (default 10)', valueHint: 'n' },
  },
  async run({ args }) {
    const project = findProject(args.cwd)
    const days = daysOption(args.days, 7)
    const limit = intOption('limit', args.limit, 10, 1)
    const store = await openProjectTraceStore(project, loadConfig(project))
    let json: TopJson
    try {
      const rows = await store.search({ sinceMs: Date.now() - days * 86_400_000 })
      json = { days, endpoints: endpointStats(rows).slice(0, limit) }
    } finally {
      store.close()
    }
    if (args.json) return printJson(json)
    if (json.endpoints.length === 0) return printLine('No traces in that period.')
    printLine(
      table(
        json.endpoints.map((e) => [e.method, e.route, String(e.count), String(e.errors), formatMs(e.avg_ms), formatMs(e.p95_ms), formatMs(e.max_ms)]),
        ['METHOD', 'ROUTE', 'COUNT', '5XX', 'AVG', 'P95', 'MAX'],
      ),
    )
  },
})
