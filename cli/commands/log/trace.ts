import { defineCommand } from '../../command/define.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { colors, printLine, printNote } from '../../output/print.ts'
import { projectFor } from '../../project/project.ts'
import { eventArg, ignoreArg, routeArg, refuseFiltersWithId, traceFilterArgs } from '../../trace/filters.ts'
import { findTrace, refuseEmptyId } from '../../trace/find-trace.ts'
import { openTraceStoreToRead } from '../../trace/open-store.ts'
import { printTraceList, searchTraces } from '../../trace/search.ts'
import { writesData } from '../../trace/row-statements.ts'
import { readReplayKey, unverifiedMarkerNote } from '../../trace/replay-marker.ts'
import { summaryOfRecord } from '../../trace/summary.ts'
import { traceView } from '../../trace/view.ts'
import { traceAsWritten } from '../../trace/positions-as-written.ts'

export default defineCommand({
  meta: { name: 'log:trace', group: 'Debug and logs', description: 'Show one trace in full, or search traces', json: ['TraceJson', 'TraceListJson'] },
  args: {
    id: { type: 'positional', required: false, description: 'Trace id (or its start); without one, search with the filters', valueHint: 'trace id' },
    ...cwdArg,
    ...jsonArg,
    ...traceFilterArgs,
    ...ignoreArg,
    ...routeArg,
    ...eventArg,
  },
  async run({ args, io, json }) {
    refuseEmptyId(args.id, 'log:trace')
    const project = projectFor(io, args.cwd)
    if (args.id === undefined) {
      const list = await searchTraces(io, project, args)
      if (args.json) return json(list)
      return printTraceList(io, list)
    }
    refuseFiltersWithId(args, 'log:trace')
    const store = await openTraceStoreToRead(io, project)
    try {
      // Positions in the files as written (the server records the transpiled column), mapped here, not when recorded.
      const record = traceAsWritten(project, await findTrace(store, args.id))
      const summary = summaryOfRecord(record, readReplayKey(project))
      if (args.json) return json({ trace: record, writes: writesData(record), summary })
      printLine(io, traceView(record, colors(io)))
      if (summary.replay_of !== null) printNote(io, `A replay of ${summary.replay_of} (svc replay sent it).`)
      if (summary.unverified_replay_of !== null) printNote(io, unverifiedMarkerNote(summary.unverified_replay_of))
    } finally {
      store.close()
    }
  },
})
