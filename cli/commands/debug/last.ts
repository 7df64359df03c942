import { defineCommand } from 'citty'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { CliError } from '../../output/cli-error.ts'
import { printJson } from '../../output/print.ts'
import { findProject } from '../../project/project.ts'
import { openProjectTraceStore } from '../../trace/open-store.ts'
import { replayArgs, setsFrom } from '../../trace/run-replay.ts'
import { analyse, printWhy } from '../../trace/why-command.ts'

export default defineCommand({
  args: {
    ...cwdArg,
    ...jsonArg,
    fix: { type: 'boolean', description: 'Replay it against the current code and show whether it still fails', default: false },
    ...replayArgs,
  },
  async run({ args, rawArgs }) {
    const project = findProject(args.cwd)
    const store = await openProjectTraceStore(project)
    let record
    try {
      const [last] = await store.search({ status: '4xx,5xx', limit: 1 })
      if (last === undefined) {
        throw new CliError('E_NO_FAILED_TRACE', 'No failed request in the traces', { hint: 'svc trace:list shows what was recorded' })
      }
      record = (await store.get(last.trace_id))!
    } finally {
      store.close()
    }
    const json = await analyse(project, record.method, record.path, record, { ...args, sets: setsFrom(rawArgs) })
    if (args.json) return printJson(json)
    printWhy(json)
  },
})
