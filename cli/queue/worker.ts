/**
 * One worker in this process: the app loaded as `svc serve` loads it (its
 * database, queue and mailer), its jobs, and the worker loop until the queue
 * is empty, a job limit, a timeout or a stop signal. `queue:work` runs it
 * directly, or in each child process of `--workers=N`.
 */
import { hostname } from 'node:os'
import { checkTimeout, resolveQueueSettings, runWorker, type AppConfig, type Database, type QueueDriver, type WorkerEvent, type WorkerSummary } from '../../framework/index.ts'
import { CliError } from '../output/cli-error.ts'
import { databaseWhere, loadApp, type LoadedApp } from '../project/load-app.ts'
import { explainMissingTable, missingTableIn } from '../project/missing-table.ts'
import type { Project } from '../project/project.ts'
import { loadJobs } from './jobs.ts'
import { QUEUE_TABLES_FIX } from '../../framework/queue/schema.ts'

export interface WorkOptions {
  /** Priority order. */
  queues: string[]
  timeoutMs: number
  maxJobs?: number
  stopWhenEmpty: boolean
  signal: AbortSignal
  onEvent?: (event: WorkerEvent) => void
  /** How long an idle worker waits before looking again (ms). */
  idleMs?: number
}

/** `delayed`: when the worker stopped for want of a due job, the jobs of its queues still waiting for their time. */
export type WorkSummary = WorkerSummary & { delayed?: number }

export async function workInProcess(project: Project, options: WorkOptions): Promise<WorkSummary> {
  const loaded = await loadApp(project, { trace: false })
  try {
    const driver = await readyDriver(project, loaded, options.timeoutMs)
    const jobs = await loadJobs(project)
    const summary = await runWorker({
      driver,
      jobs,
      queues: options.queues,
      services: { db: loaded.database, queue: loaded.queue, mailer: loaded.mailer, config: loaded.config },
      workerId: `${hostname()}:${process.pid}`,
      timeoutMs: options.timeoutMs,
      leaseMs: resolveQueueSettings(loaded.config).leaseMs,
      maxJobs: options.maxJobs,
      stopWhenEmpty: options.stopWhenEmpty,
      signal: options.signal,
      idleMs: options.idleMs,
      onEvent: options.onEvent,
    })
    if (summary.reason !== 'empty') return summary
    // A retry's backoff or a dispatch delay is not an empty queue: saying so would hide jobs left behind.
    const counts = await driver.counts()
    const delayed = counts.filter((count) => options.queues.includes(count.queue)).reduce((sum, count) => sum + count.delayed, 0)
    return { ...summary, delayed }
  } finally {
    await loaded.close()
  }
}

/** The app's queue driver, checked before any job is taken: the timeout fits the lease, and the queue answers. */
export async function readyDriver(project: Project, loaded: Pick<LoadedApp, 'queue' | 'config' | 'database'>, timeoutMs: number): Promise<QueueDriver> {
  const settings = resolveQueueSettings(loaded.config)
  try {
    checkTimeout(timeoutMs, settings.leaseMs)
  } catch (error) {
    throw new CliError('E_QUEUE_TIMEOUT', (error as Error).message, {
      hint: `pass a shorter --timeout, or raise QUEUE_RETRY_AFTER (now ${settings.leaseMs / 1000} s)`,
    })
  }
  const driver = loaded.queue?.driver
  if (driver === undefined) throw new CliError('E_QUEUE', 'The app has no queue (it has no database)')
  if (driver.name === 'sync') {
    throw new CliError('E_QUEUE_SYNC', 'QUEUE_CONNECTION=sync runs every job when it is dispatched: there is nothing for a worker to take', {
      hint: 'set QUEUE_CONNECTION=database (or redis) in .env',
    })
  }
  await checkReachable(driver, settings.connection, queueDatabase(project, loaded.config, loaded.database))
  return driver
}

/** The database a queue's missing table is explained on (what its fix is depends on what ran there). */
export interface QueueDatabase {
  project: Project
  database: Database
  /** Where the database is, as the explanation names it. */
  where: string
}

export function queueDatabase(project: Project, config: AppConfig, database: Database | undefined): QueueDatabase | undefined {
  return database === undefined ? undefined : { project, database, where: databaseWhere(project, config) }
}

/**
 * Asks the driver for its counts: a missing table or an unreachable Redis says so now, with the fix. The fix
 * for a missing table is read from the database: svc migrate when the app has the queue's migration but it
 * has not run (a database never migrated), svc make:queue-table first when the app has none.
 */
export async function checkReachable(driver: QueueDriver, connection: string, on?: QueueDatabase): Promise<void> {
  try {
    await driver.counts()
  } catch (error) {
    const message = (error as Error).message
    const table = missingTableIn(message)
    if (table !== undefined) {
      const explained = on === undefined ? undefined : await explainMissingTable(on.project, on.database, on.where, table).catch(() => undefined)
      throw new CliError('E_QUEUE_TABLE', `The queue tables do not exist: ${message}`, { hint: explained ?? QUEUE_TABLES_FIX })
    }
    throw new CliError('E_QUEUE_UNREACHABLE', `The ${connection} queue does not answer: ${message}`, {
      hint: connection === 'redis' ? 'check REDIS_URL and that redis-server runs' : 'check DATABASE_URL',
    })
  }
}
