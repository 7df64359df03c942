import { defineCommand } from '../../command/define.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { printLine } from '../../output/print.ts'
import { projectFor } from '../../project/project.ts'
import { withProjectQueue } from '../../queue/open.ts'

export default defineCommand({
  meta: { name: 'queue:flush', group: 'Queue', description: 'Delete failed jobs', json: ['QueueFlushJson'] },
  args: {
    ...cwdArg,
    ...jsonArg,
    queue: { type: 'string', description: 'Only the failed jobs of this queue', valueHint: 'name', nonEmpty: true },
  },
  async run({ args, io, json }) {
    const result = await withProjectQueue(projectFor(io, args.cwd), async ({ driver, settings }) => ({
      connection: settings.connection,
      queue: args.queue ?? null,
      flushed: await driver.flushFailed(args.queue),
    }))
    if (args.json) return json(result)
    printLine(io, `Deleted ${result.flushed} failed job(s)${result.queue === null ? '' : ` of ${result.queue}`}.`)
  },
})
