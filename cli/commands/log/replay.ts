import { defineCommand } from 'citty'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { printJson } from '../../output/print.ts'
import { findProject } from '../../project/project.ts'
import { readProjectTrace } from '../../trace/find-trace.ts'
import { printReplay, replayArgs, runReplay, setsFrom } from '../../trace/run-replay.ts'

export default defineCommand({
  args: {
    id: { type: 'positional', required: true, description: 'Trace id (or its start)' },
    ...cwdArg,
    ...jsonArg,
    ...replayArgs,
  },
  async run({ args, rawArgs }) {
    const project = findProject(args.cwd)
    const record = await readProjectTrace(project, args.id)
    const json = await runReplay(project, record, { ...args, sets: setsFrom(rawArgs) })
    if (args.json) return printJson(json)
    printReplay(json, { diff: args.diff })
  },
})
