import { defineCommand } from 'citty'
import type { TraceRecord } from '../../../framework/index.ts'
import { cwdArg, intOption, jsonArg } from '../../output/args.ts'
import { color, printJson, printLine } from '../../output/print.ts'
import { loadConfig } from '../../project/load-app.ts'
import { findProject } from '../../project/project.ts'
import { parseFilters, traceFilterArgs, type FilterArgs } from '../../trace/filters.ts'
import { openProjectTraceStore, projectTraceConfig } from '../../trace/open-store.ts'
import { distinctTraces, replayTraces } from '../../trace/regression-run.ts'
import { diffText } from '../../trace/run-replay.ts'

const { limit: _limit, ...filters } = traceFilterArgs

/** Exit code 1 when any response changed or could not be replayed. */
export default defineCommand({
  args: {
    ...cwdArg,
    ...jsonArg,
    limit: { type: 'string', description: 'Replay at most N distinct requests (default 100)', valueHint: 'n' },
    all: { type: 'boolean', description: 'Also replay POST, PUT, PATCH, DELETE, against a fresh migrated and seeded test database', default: false },
    ...filters,
  },
  async run({ args }) {
    const project = findProject(args.cwd)
    const config = loadConfig(project)
    const limit = intOption('limit', args.limit, 100, 1)
    const { filter } = parseFilters({ ...(args as FilterArgs), limit: undefined }, projectTraceConfig(project, config).slowMs)
    delete filter.limit
    const store = await openProjectTraceStore(project, config)
    let traces: TraceRecord[]
    try {
      traces = distinctTraces(await store.records({ ...filter, limit: limit * 20 }), limit)
    } finally {
      store.close()
    }
    const json = await replayTraces(project, traces, { all: args.all === true, canSign: config.env !== 'production' })
    process.exitCode = json.changed > 0 || json.errors > 0 ? 1 : 0
    if (args.json) return printJson(json)
    for (const result of json.results) {
      const label = `${result.method} ${result.path}  ${color.dim(result.trace_id)}`
      if (result.status === 'same') printLine(`${color.green('same   ')} ${label}`)
      else if (result.status === 'skipped') printLine(`${color.dim('skipped')} ${label}  ${color.dim(result.reason ?? '')}`)
      else if (result.status === 'error') printLine(`${color.red('error  ')} ${label}  ${result.reason}`)
      else printLine(`${color.red('changed')} ${label}\n${diffText(result.diff!).split('\n').slice(1).map((line) => `    ${line}`).join('\n')}`)
    }
    printLine('')
    printLine(`${json.total} replayed: ${json.same} same, ${json.changed} changed, ${json.errors} errors, ${json.skipped} skipped`)
  },
})
