import type { FailedJob } from '../../../framework/index.ts'
import { listenerJob, queuedListenerName } from '../../../framework/events/queued.ts'
import { defineCommand } from '../../command/define.ts'
import type { FailedJobJson, QueueStatusJson } from '../../contract/index.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { colors, printLine, table } from '../../output/print.ts'
import { terminalText } from '../../output/terminal-text.ts'
import { projectFor } from '../../project/project.ts'
import { runningDaemon } from '../../queue/daemon.ts'
import { withProjectQueue } from '../../queue/open.ts'

export default defineCommand({
  meta: {
    name: 'queue:status',
    group: 'Queue',
    description: 'Jobs per queue (pending, delayed, reserved, failed) and the failed jobs',
    // Laravel's name for the list of failed jobs, which this prints.
    alias: 'queue:failed',
    json: ['QueueStatusJson'],
  },
  args: {
    ...cwdArg,
    ...jsonArg,
    queue: { type: 'string', description: 'Only this queue', valueHint: 'name', nonEmpty: true },
    limit: { type: 'number', description: 'Failed jobs to list (default 20)', valueHint: 'n', integer: true, min: 0, default: 20 },
  },
  async run({ args, io, json }) {
    const project = projectFor(io, args.cwd)
    const status = await withProjectQueue(project, async ({ driver, settings }): Promise<QueueStatusJson> => {
      const queues = (await driver.counts()).filter((row) => args.queue === undefined || row.queue === args.queue)
      const failed = args.limit === 0 ? [] : await driver.failed({ queue: args.queue, limit: args.limit })
      const totals = { pending: 0, delayed: 0, reserved: 0, failed: 0 }
      for (const row of queues) for (const key of Object.keys(totals) as Array<keyof typeof totals>) totals[key] += row[key]
      const pid = runningDaemon(project)
      return { connection: settings.connection, queues, totals, failed_jobs: failed.map(failedJson), daemon: pid === undefined ? null : { pid } }
    })
    if (args.json) return json(status)
    const color = colors(io)
    printLine(io, `${color.bold('Queue')} (${status.connection})${status.daemon ? `, daemon pid ${status.daemon.pid}` : ''}`)
    if (status.queues.length === 0) {
      printLine(io, args.queue === undefined ? 'No jobs.' : `No jobs in ${args.queue}.`)
    } else {
      const rows = status.queues.map((row) => [row.queue, String(row.pending), String(row.delayed), String(row.reserved), row.failed > 0 ? color.red(String(row.failed)) : '0'])
      printLine(io, table(rows, ['QUEUE', 'PENDING', 'DELAYED', 'RESERVED', 'FAILED']))
    }
    if (status.failed_jobs.length > 0) {
      printLine(io)
      printLine(io, color.bold('Failed jobs (newest first)'))
      printLine(
        io,
        table(
          // The app's text (an error may hold a NUL or an escape sequence) escaped for the terminal; --json keeps it exact.
          status.failed_jobs.map((job) => [job.id, terminalText(job.queue), terminalText(jobLabel(job)), String(job.attempts), job.failed_at, firstLine(job.error)]),
          ['ID', 'QUEUE', 'JOB', 'ATTEMPTS', 'FAILED AT', 'ERROR'],
        ),
      )
      printLine(io, color.dim('svc queue:retry <id|all> runs them again; svc queue:flush deletes them; --json has the stacks.'))
    }
  },
})

function failedJson(job: FailedJob): FailedJobJson {
  return {
    id: job.id,
    queue: job.queue,
    name: job.name,
    attempts: job.attempts,
    error: job.error,
    stack: job.stack ?? null,
    failed_at: job.failedAt,
    payload: job.payload,
  }
}

/** Every queued listener is the one job svc.listener: the label names the listener, as queue:work's lines do. */
function jobLabel(job: FailedJobJson): string {
  const listener = job.name === listenerJob.name ? queuedListenerName(job.payload) : undefined
  return listener === undefined ? job.name : `${job.name} ${listener}`
}

function firstLine(text: string): string {
  const line = terminalText(text.split('\n')[0]!)
  return line.length > 100 ? `${line.slice(0, 99)}…` : line
}
