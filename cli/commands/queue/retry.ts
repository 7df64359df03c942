import { defineCommand } from '../../command/define.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { CliError } from '../../output/cli-error.ts'
import { printLine, printNote } from '../../output/print.ts'
import { projectFor } from '../../project/project.ts'
import { withProjectQueue } from '../../queue/open.ts'

export default defineCommand({
  meta: { name: 'queue:retry', group: 'Queue', description: 'Put failed jobs back in their queue with fresh attempts', json: ['QueueRetryJson'] },
  args: {
    ...cwdArg,
    ...jsonArg,
    id: { type: 'positional', description: 'A failed job id (see queue:status), several separated by commas, or all', valueHint: 'id|all' },
  },
  async run({ args, io, json }) {
    const requested = args.id.trim() === 'all' ? ('all' as const) : args.id.split(',').map((id) => id.trim()).filter((id) => id !== '')
    if (requested !== 'all' && requested.length === 0) {
      throw new CliError('E_BAD_ARGUMENTS', 'Name a failed job id, several separated by commas, or all', { hint: 'svc queue:status lists the failed jobs' })
    }
    const result = await withProjectQueue(projectFor(io, args.cwd), async ({ driver, settings }) => ({
      connection: settings.connection,
      requested,
      retried: await driver.retryFailed(requested),
    }))
    if (args.json) return json(result)
    printLine(io, `Queued ${result.retried} failed job(s) again.`)
    if (requested !== 'all' && result.retried < requested.length) {
      printNote(io, `${requested.length - result.retried} of the ids named no failed job (svc queue:status lists them).`)
    }
  },
})
