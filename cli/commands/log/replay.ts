import { defineCommand } from '../../command/define.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { projectFor } from '../../project/project.ts'
import { readProjectTrace } from '../../trace/find-trace.ts'
import { printReplay, printSetNotes, replayArgs, runReplay } from '../../trace/run-replay.ts'

export default defineCommand({
  meta: {
    name: 'log:replay',
    group: 'Debug and logs',
    description: 'Replay a traced request against the current code (a dry run in production)',
    alias: ['replay'],
    json: ['ReplayJson'],
  },
  args: {
    id: { type: 'positional', description: 'Trace id (or its start)', valueHint: 'trace id' },
    ...cwdArg,
    ...jsonArg,
    ...replayArgs,
  },
  async run({ args, io, json }) {
    const project = projectFor(io, args.cwd)
    const record = await readProjectTrace(project, args.id)
    printSetNotes(io, record, args.set)
    const result = await runReplay(project, record, { ...args, sets: args.set })
    if (args.json) return json(result)
    printReplay(io, result, { diff: args.diff, as: args.as })
  },
})
