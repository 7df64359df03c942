import { defineCommand } from '../../command/define.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { colors, printLine, table } from '../../output/print.ts'
import { loadConfig } from '../../project/load-app.ts'
import { projectFor } from '../../project/project.ts'
import { parseFilters, traceFilterArgs } from '../../trace/filters.ts'
import { openTraceStoreToRead, projectTraceConfig } from '../../trace/open-store.ts'
import { readReplayKey } from '../../trace/replay-marker.ts'
import { SUMMARY_HEADERS, summaryLine, summaryOfRecord } from '../../trace/summary.ts'

const { slow: _slow, limit: _limit, ...filters } = traceFilterArgs

export default defineCommand({
  meta: { name: 'log:slow', group: 'Debug and logs', description: 'The slowest traces', json: ['SlowJson'] },
  args: {
    ...cwdArg,
    ...jsonArg,
    min: { type: 'number', description: 'At least this many ms (default TRACE_SLOW_MS)', valueHint: 'ms', min: 0 },
    limit: { type: 'number', description: 'At most N traces', valueHint: 'n', integer: true, min: 1, default: 20 },
    ...filters,
  },
  async run({ args, io, json: print }) {
    const project = projectFor(io, args.cwd)
    const config = loadConfig(project)
    const slowMs = projectTraceConfig(project, config).slowMs
    const min = args.min ?? slowMs
    const { filter } = parseFilters({ ...args, slow: undefined }, slowMs)
    const store = await openTraceStoreToRead(io, project, config)
    try {
      const records = await store.records({ ...filter, minDurationMs: min, order: 'slowest' })
      const replayKey = readReplayKey(project)
      const json = { min_ms: min, traces: records.map((record) => summaryOfRecord(record, replayKey)) }
      if (args.json) return print(json)
      if (json.traces.length === 0) return printLine(io, `No trace took ${min} ms or more.`)
      const color = colors(io)
      printLine(io, table(json.traces.map((summary) => summaryLine(summary, color)), SUMMARY_HEADERS))
      printLine(io, color.dim(`\n${json.traces.length} trace(s) of at least ${min} ms, slowest first`))
    } finally {
      store.close()
    }
  },
})
