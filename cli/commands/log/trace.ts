import { defineCommand } from 'citty'
import type { TraceJson } from '../../contract/traces.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { printJson, printLine } from '../../output/print.ts'
import { findProject } from '../../project/project.ts'
import { traceFilterArgs, type FilterArgs } from '../../trace/filters.ts'
import { findTrace } from '../../trace/find-trace.ts'
import { openProjectTraceStore } from '../../trace/open-store.ts'
import { traceView } from '../../trace/view.ts'
import { printTraceList, searchTraces } from '../trace/list.ts'

export default defineCommand({
  args: {
    id: { type: 'positional', required: false, description: 'Trace id (or its start); without one, search with the filters' },
    ...cwdArg,
    ...jsonArg,
    ...traceFilterArgs,
  },
  async run({ args }) {
    if (args.id === undefined || args.id === '') {
      const list = await searchTraces(args as FilterArgs & { cwd?: string })
      if (args.json) return printJson(list)
      return printTraceList(list)
    }
    const store = await openProjectTraceStore(findProject(args.cwd))
    try {
      const record = await findTrace(store, args.id)
      if (args.json) {
        const json: TraceJson = { trace: record }
        return printJson(json)
      }
      printLine(traceView(record))
    } finally {
      store.close()
    }
  },
})
