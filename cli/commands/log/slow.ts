import { defineCommand } from 'citty'
import type { SlowJson } from '../../contract/traces.ts'
import { cwdArg, intOption, jsonArg } from '../../output/args.ts'
import { CliError } from '../../output/cli-error.ts'
import { color, printJson, printLine, table } from '../../output/print.ts'
import { loadConfig } from '../../project/load-app.ts'
import { findProject } from '../../project/project.ts'
import { traceFilterArgs, parseFilters, type FilterArgs } from '../../trace/filters.ts'
import { openProjectTraceStore, projectTraceConfig } from '../../trace/open-store.ts'
import { SUMMARY_HEADERS, summaryLine, summaryOfRow } from '../../trace/summary.ts'

const { slow: _slow, limit: _limit, ...filters } = traceFilterArgs

export default defineCommand({
  args: {
    ...cwdArg,
    ...jsonArg,
    min: { type: 'string', description: 'At least this many ms (default TRACE_SLOW_MS)', valueHint: 'ms' },
    limit: { type: 'string', description: 'At most N traces (default 20)', valueHint: 'n' },
    ...filters,
  },
  async run({ args }) {
    const project = findProject(args.cwd)
    const config = loadConfig(project)
    const slowMs = projectTraceConfig(project, config).slowMs
    const min = args.min === undefined ? slowMs : Number(args.min)
    if (!(min >= 0)) throw new CliError('E_BAD_OPTION', `--min takes milliseconds, got "${args.min}"`)
    const { filter } = parseFilters({ ...(args as FilterArgs), slow: undefined, limit: String(intOption('limit', args.limit, 20, 1)) }, slowMs)
    const store = await openProjectTraceStore(project, config)
    try {
      const rows = await store.search({ ...filter, minDurationMs: min, order: 'slowest' })
      const json: SlowJson = { min_ms: min, traces: rows.map(summaryOfRow) }
      if (args.json) return printJson(json)
      if (json.traces.length === 0) return printLine(`No trace took ${min} ms or more.`)
      printLine(table(json.traces.map(summaryLine), SUMMARY_HEADERS))
      printLine(color.dim(`\n${json.traces.length} trace(s) of at least ${min} ms, slowest first`))
    } finally {
      store.close()
    }
  },
})
