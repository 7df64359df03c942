import { defineCommand } from '../../command/define.ts'
import { cwdArg } from '../../output/args.ts'
import { CliError } from '../../output/cli-error.ts'
import { colors, printLine, printNote } from '../../output/print.ts'
import { resolveQueueSettings, type AppConfig } from '../../../framework/index.ts'
import { refuseMissingDatabase } from '../../database/open.ts'
import { loadApp, loadConfig } from '../../project/load-app.ts'
import { projectFor } from '../../project/project.ts'
import { isWorkerChild, leaveParent, stopWhenOrphaned, tellParent } from '../../queue/child.ts'
import { releaseDaemonPidFile, startDaemon } from '../../queue/daemon.ts'
import { progressLine, toWire } from '../../queue/progress.ts'
import { supervise } from '../../queue/supervisor.ts'
import { readyDriver, workInProcess } from '../../queue/worker.ts'

const STOPPED = {
  empty: 'the queue is empty',
  'max-jobs': 'the --max-jobs limit was reached',
  stopped: 'asked to stop',
  timeout: 'a job ran past its timeout',
} as const

export default defineCommand({
  meta: { name: 'queue:work', group: 'Queue', description: 'Run queued jobs (one worker, or N worker processes)' },
  args: {
    ...cwdArg,
    queue: { type: 'string', description: 'Queues to take jobs from, in priority order, separated by commas (default: default)', valueHint: 'a,b' },
    workers: { type: 'number', description: 'Run N worker processes, restarted when they crash', valueHint: 'n', integer: true, min: 1, max: 64 },
    daemon: { type: 'boolean', description: 'Run in the background (log: storage/logs/queue.log; stop with kill <pid>)' },
    'stop-when-empty': { type: 'boolean', description: 'Stop once no job is due' },
    'max-jobs': { type: 'number', description: 'Stop (or, under --workers, restart) a worker after N jobs', valueHint: 'n', integer: true, min: 1 },
    timeout: { type: 'number', description: 'Seconds a job may run, unless it sets its own (default 60); must be under QUEUE_RETRY_AFTER', valueHint: 'seconds', min: 0.1, default: 60 },
  },
  async run({ args, io }) {
    const project = projectFor(io, args.cwd)
    const queues = (args.queue ?? 'default').split(',').map((name) => name.trim()).filter((name) => name !== '')
    if (queues.length === 0) throw new CliError('E_BAD_OPTION', '--queue names no queue', { hint: 'svc queue:work --queue=high,default' })
    const timeoutMs = Math.round(args.timeout * 1000)
    const childArgs = [
      'queue:work',
      '--cwd',
      project.root,
      '--queue',
      queues.join(','),
      '--timeout',
      String(args.timeout),
      ...(args['max-jobs'] === undefined ? [] : ['--max-jobs', String(args['max-jobs'])]),
      ...(args['stop-when-empty'] ? ['--stop-when-empty'] : []),
    ]

    if (isWorkerChild(io.env)) {
      const controller = new AbortController()
      io.signal.addEventListener('abort', () => controller.abort(io.signal.reason), { once: true })
      stopWhenOrphaned(controller)
      const summary = await workInProcess(project, {
        queues,
        timeoutMs,
        maxJobs: args['max-jobs'],
        stopWhenEmpty: args['stop-when-empty'],
        signal: controller.signal,
        onEvent: (event) => tellParent({ type: 'event', event: toWire(event) }),
      })
      await leaveParent({ type: 'stopped', summary })
      return
    }

    // Run as a daemon, this process removes its pid file when it ends: stopped (SIGTERM, SIGINT) or failing at start.
    try {
      // Bad settings (a timeout not under the lease, no queue table, Redis down) fail here, before any process starts.
      // A database queue with no database file yet: loading the app would make an empty one, whose missing jobs
      // table then sent the user to make:queue-table, a migration the app may well have (svc migrate runs it).
      const config = loadConfig(project)
      if (queueConnection(config) === 'database') refuseMissingDatabase(project, config)
      const checked = await loadApp(project, { trace: false })
      let connection: string
      try {
        await readyDriver(project, checked, timeoutMs)
        connection = checked.queue!.driver.name
      } finally {
        await checked.close()
      }

      if (args.daemon) {
        const workerArgs = [...childArgs, ...(args.workers === undefined ? [] : ['--workers', String(args.workers)])]
        const daemon = startDaemon(project, workerArgs, io)
        printLine(io, `Queue worker running in the background (pid ${daemon.pid}).`)
        printNote(io, `Log: ${daemon.logFile}. Stop it with: kill ${daemon.pid}`)
        return
      }

      const color = colors(io)
      printNote(
        io,
        `Processing ${queues.join(', ')} (${connection} queue${args.workers === undefined ? '' : `, ${args.workers} workers`}); ` +
          'Ctrl-C stops after the current job.',
      )
      if (args.workers !== undefined) {
        const summary = await supervise({ workers: args.workers, childArgs, io })
        const left = summary.delayed > 0 ? `; stopped: ${delayedJobsLeft(summary.delayed)}` : ''
        printNote(io, `Ran ${summary.processed} job(s), ${summary.failed} failed for good; ${summary.restarted} worker restart(s)${left}.`)
        return
      }

      const summary = await workInProcess(project, {
        queues,
        timeoutMs,
        maxJobs: args['max-jobs'],
        stopWhenEmpty: args['stop-when-empty'],
        signal: io.signal,
        onEvent: (event) => {
          const line = progressLine(toWire(event), color, new Date())
          if (line !== undefined) printLine(io, line)
        },
      })
      const left = summary.delayed ?? 0
      const stopped = left === 0 ? STOPPED[summary.reason] : delayedJobsLeft(left)
      printNote(io, `Ran ${summary.processed} job(s), ${summary.failed} failed for good; stopped: ${stopped}.`)
      if (summary.reason === 'timeout') {
        // The timed-out job's code may still be running: only ending the process is sure to stop it.
        throw new CliError('E_JOB_TIMEOUT', 'A job ran past its timeout; the worker stops so that its code stops too', {
          hint: 'run workers with --workers=N (restarted at once) or under a process supervisor',
        })
      }
    } finally {
      releaseDaemonPidFile(io.env)
    }
  },
})

/** Why --stop-when-empty stopped with jobs left: a retry's backoff or a dispatch delay is not an empty queue (said for one worker and for --workers alike). */
function delayedJobsLeft(count: number): string {
  return `no job is due, but ${count} delayed job(s) wait for their time (a dispatch delay or a retry's backoff): run svc queue:work again later, or without --stop-when-empty`
}

/** QUEUE_CONNECTION as resolved; undefined when it is invalid, which loading the app then reports (E_CONFIG). */
function queueConnection(config: AppConfig): string | undefined {
  try {
    return resolveQueueSettings(config).connection
  } catch {
    return undefined
  }
}
