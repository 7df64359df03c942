import { defineCommand } from '../../command/define.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { projectFor } from '../../project/project.ts'
import { eventArg, ignoreArg, routeArg, traceFilterArgs } from '../../trace/filters.ts'
import { printTraceList, searchTraces } from '../../trace/search.ts'

export default defineCommand({
  meta: { name: 'trace:list', group: 'Debug and logs', description: 'List recent traces, one line each', json: ['TraceListJson'] },
  args: { ...cwdArg, ...jsonArg, ...traceFilterArgs, ...ignoreArg, ...routeArg, ...eventArg },
  async run({ args, io, json }) {
    const list = await searchTraces(io, projectFor(io, args.cwd), args)
    if (args.json) return json(list)
    printTraceList(io, list)
  },
})
