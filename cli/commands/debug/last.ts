import { defineCommand } from '../../command/define.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { CliError } from '../../output/cli-error.ts'
import { projectFor } from '../../project/project.ts'
import { lastFailure } from '../../trace/last-failure.ts'
import { openTraceStoreToRead } from '../../trace/open-store.ts'
import { readReplayKey } from '../../trace/replay-marker.ts'
import { printSetNotes, replayArgs } from '../../trace/run-replay.ts'
import { analyse, printWhy } from '../../trace/why-command.ts'

export default defineCommand({
  meta: { name: 'debug:last', group: 'Debug and logs', description: 'The same analysis for the last failed request (not a replay of one)', alias: ['why'], json: ['WhyJson'] },
  args: {
    ...cwdArg,
    ...jsonArg,
    fix: { type: 'boolean', description: 'Replay it against the current code and show whether it still fails' },
    ...replayArgs,
  },
  async run({ args, io, json }) {
    const project = projectFor(io, args.cwd)
    const store = await openTraceStoreToRead(io, project)
    let last
    try {
      last = await lastFailure(store, readReplayKey(project))
      if (last === undefined) {
        throw new CliError('E_NO_FAILED_TRACE', 'No failed request in the traces', { hint: 'svc trace:list shows what was recorded' })
      }
    } finally {
      store.close()
    }
    const { record, failedReplay } = last
    printSetNotes(io, record, args.set)
    const result = await analyse(project, record.method, record.path, record, { ...args, sets: args.set })
    result.failed_replay = failedReplay === undefined ? null : { trace_id: failedReplay.trace_id, status_code: failedReplay.status_code, timestamp: failedReplay.timestamp }
    if (args.json) return json(result)
    printWhy(io, result, args.as)
  },
})
