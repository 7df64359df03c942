import { defineCommand } from '../../command/define.ts'
import type { QueueConnectionJson, QueueRetryJson } from '../../contract/index.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { CliError } from '../../output/cli-error.ts'
import { printLine, printNote } from '../../output/print.ts'
import { projectFor } from '../../project/project.ts'
import { withProjectQueue } from '../../queue/open.ts'

/** What a failed job's id looks like on the connections that keep failed jobs (queue:status prints them so). */
const ID_FORMAT: Record<Exclude<QueueConnectionJson, 'sync'>, { pattern: RegExp; says: string }> = {
  database: { pattern: /^[1-9]\d{0,15}$/, says: 'whole numbers from 1' },
  redis: { pattern: /^[^:\s]+(?::[^:\s]+)*:[^:\s]+$/, says: '<queue>:<id>' },
}

export default defineCommand({
  meta: { name: 'queue:retry', group: 'Queue', description: 'Put failed jobs back in their queue with fresh attempts', json: ['QueueRetryJson'] },
  args: {
    ...cwdArg,
    ...jsonArg,
    id: { type: 'positional', description: 'A failed job id (see queue:status), several separated by commas, or all', valueHint: 'id|all' },
  },
  async run({ args, io, json }) {
    const requested = args.id.trim() === 'all' ? ('all' as const) : [...new Set(args.id.split(',').map((id) => id.trim()).filter((id) => id !== ''))]
    if (requested !== 'all' && requested.length === 0) {
      throw new CliError('E_BAD_ARGUMENTS', 'Name a failed job id, several separated by commas, or all', { hint: 'svc queue:status lists the failed jobs' })
    }
    const result = await withProjectQueue(projectFor(io, args.cwd), async ({ driver, settings }): Promise<QueueRetryJson> => {
      if (settings.connection === 'sync') {
        // The sync driver keeps a failed job in the memory of the process that ran it, never this one.
        throw new CliError('E_QUEUE_SYNC', 'QUEUE_CONNECTION=sync keeps no failed jobs for the CLI: a job that fails is reported on the stderr of the process that dispatched it', {
          hint: 'set QUEUE_CONNECTION=database (or redis) in .env to keep failed jobs for queue:retry',
        })
      }
      if (requested === 'all') return { connection: settings.connection, requested, retried: await driver.retryFailed('all'), missing: [] }
      const format = ID_FORMAT[settings.connection]
      const invalid = requested.filter((id) => !format.pattern.test(id))
      if (invalid.length > 0) {
        throw new CliError('E_BAD_ARGUMENTS', `Not a job id: ${invalid.join(', ')} (a ${settings.connection} queue's ids are ${format.says})`, {
          hint: 'svc queue:status lists the failed jobs with their ids; all retries every one',
        })
      }
      // One at a time, so that the ones that named no failed job can be said.
      const missing: string[] = []
      for (const id of requested) if ((await driver.retryFailed([id])) === 0) missing.push(id)
      return { connection: settings.connection, requested, retried: requested.length - missing.length, missing }
    })
    if (requested !== 'all' && result.retried === 0) {
      throw new CliError('E_NO_FAILED_JOB', `No failed job ${requested.length === 1 ? 'has the id' : 'has any of the ids'} ${requested.join(', ')}`, {
        hint: 'svc queue:status lists the failed jobs (one retried already is back in its queue)',
      })
    }
    if (args.json) return json(result)
    printLine(io, `Queued ${result.retried} failed job(s) again.`)
    if (result.missing.length > 0) printNote(io, `No failed job has the id ${result.missing.join(', ')}: not retried (svc queue:status lists them).`)
  },
})
