import type { TraceRecord } from '../../../framework/trace/index.ts'
import { defineCommand } from '../../command/define.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { colors, printLine, withConsoleOnStderr } from '../../output/print.ts'
import { createProgress } from '../../output/progress.ts'
import { loadConfig } from '../../project/load-app.ts'
import { projectFor } from '../../project/project.ts'
import { parseFilters, traceFilterArgs } from '../../trace/filters.ts'
import { openTraceStoreToRead, projectTraceConfig } from '../../trace/open-store.ts'
import { readReplayKey } from '../../trace/replay-marker.ts'
import { distinctTraces, replayTraces, SAFE_METHODS } from '../../trace/regression-run.ts'
import { diffText } from '../../trace/run-replay.ts'

const { limit: _limit, ...filters } = traceFilterArgs

/** Exit code 1 when any response changed or could not be replayed. */
export default defineCommand({
  meta: {
    name: 'test:regression',
    group: 'Testing',
    description: 'Replay recorded traces and report changed responses; exits 1 on any change',
    json: ['RegressionJson'],
  },
  args: {
    ...cwdArg,
    ...jsonArg,
    limit: { type: 'number', description: 'Replay at most N distinct requests', valueHint: 'n', integer: true, min: 1, default: 100 },
    all: { type: 'boolean', description: 'Also replay POST, PUT, PATCH, DELETE, against a fresh migrated and seeded test database' },
    ...filters,
  },
  async run({ args, io, json: print }) {
    const project = projectFor(io, args.cwd)
    const config = loadConfig(project)
    const limit = args.limit
    const { filter } = parseFilters(args, projectTraceConfig(project, config).slowMs)
    delete filter.limit
    // It only reads traces: a store not there yet is none to replay (a note says so), and a mistyped
    // TRACE_DATABASE_URL is E_TRACE_STORE; it used to create either and report "0 replayed".
    const store = await openTraceStoreToRead(io, project, config)
    let traces: TraceRecord[]
    try {
      traces = distinctTraces(await store.records({ ...filter, limit: limit * 20 }), limit, readReplayKey(project))
    } finally {
      store.close()
    }
    const replayed = args.all ? traces.length : traces.filter((trace) => SAFE_METHODS.has(trace.method)).length
    const progress = createProgress(io, { total: replayed, label: 'Replaying' })
    let json: Awaited<ReturnType<typeof replayTraces>>
    try {
      // The app's handlers run here: a console.log of theirs must not land in the report (the JSON document).
      json = await withConsoleOnStderr(io, () =>
        replayTraces(project, traces, {
          all: args.all === true,
          io,
          canSign: config.env !== 'production',
          onReplay: (trace) => {
            progress.tick()
            progress.step(`${trace.method} ${trace.path}`)
          },
        }),
      )
    } finally {
      progress.done()
    }
    io.exitCode = json.changed > 0 || json.errors > 0 ? 1 : 0
    if (args.json) return print(json)
    if (json.results.length === 0) return printLine(io, 'No recorded request to replay (svc serve records them; the filters given may select none).')
    const color = colors(io)
    for (const result of json.results) {
      const label = `${result.method} ${result.path}  ${color.dim(result.trace_id)}`
      if (result.status === 'same') printLine(io, `${color.green('same   ')} ${label}`)
      else if (result.status === 'skipped') printLine(io, `${color.dim('skipped')} ${label}  ${color.dim(result.reason ?? '')}`)
      else if (result.status === 'error') printLine(io, `${color.red('error  ')} ${label}  ${result.reason}`)
      else printLine(io, `${color.red('changed')} ${label}\n${diffText(result.diff!, color).split('\n').slice(1).map((line) => `    ${line}`).join('\n')}`)
    }
    printLine(io)
    printLine(io, `${json.total} replayed: ${json.same} same, ${json.changed} changed, ${json.errors} errors, ${json.skipped} skipped`)
  },
})
