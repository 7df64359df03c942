/**
 * The worker loop, on web standards: reserve the first due job of the first
 * queue that has one (queues in priority order), run it, repeat, until told
 * to stop. `svc queue:work` runs it in one or more processes; a stop signal
 * lets the current job finish first.
 *
 * @example
 * const summary = await runWorker({ driver, jobs, queues: ['high', 'default'], services, stopWhenEmpty: true })
 */
import type { QueueDriver } from './driver.ts'
import type { JobInfo, JobServices } from './job.ts'
import type { JobRegistry } from './registry.ts'
import { jobInfo, runJob, type JobRunResult } from './run-job.ts'

export interface WorkerOptions {
  driver: QueueDriver
  jobs: JobRegistry
  /** Priority order: a job of the first is always taken before one of the second. */
  queues: readonly string[]
  services: JobServices
  /** Names this worker's leases (host and process, say). */
  workerId?: string
  /** A run's timeout (ms) unless the job declares its own; default 60000. Must be shorter than the lease. */
  timeoutMs?: number
  /** The driver's lease (`retry_after`, ms): a job whose worker died runs again after it. */
  leaseMs: number
  /** Stop after this many jobs. */
  maxJobs?: number
  /** Stop when no job is due. */
  stopWhenEmpty?: boolean
  /** Aborted: stop once the current job is finished. */
  signal?: AbortSignal
  /** How long to wait when no job is due before looking again (ms); default 1000. */
  idleMs?: number
  onEvent?: (event: WorkerEvent) => void
  random?: () => number
}

export type WorkerEvent =
  /** `timeoutMs`: how long this run may take (the job's own timeout, or the worker's). */
  | { type: 'started'; job: JobInfo; timeoutMs: number }
  | { type: 'finished'; result: JobRunResult }
  /** The driver failed (the database was busy, Redis went away): the worker waits and tries again. */
  | { type: 'error'; error: Error }

export type WorkerStop = 'empty' | 'max-jobs' | 'stopped' | 'timeout'

export interface WorkerSummary {
  reason: WorkerStop
  processed: number
  failed: number
}

export const DEFAULT_TIMEOUT_MS = 60_000
/** Consecutive driver failures after which the worker gives up (its supervisor restarts it). */
const MAX_DRIVER_ERRORS = 10

export class QueueConfigError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'QueueConfigError'
  }
}

/** The worker refuses a timeout not shorter than the lease: the job could then run twice while its first run is still going. */
export function checkTimeout(timeoutMs: number, leaseMs: number): void {
  if (!(timeoutMs < leaseMs)) {
    throw new QueueConfigError(
      `The job timeout (${timeoutMs} ms) must be shorter than the queue's lease, retry_after (${leaseMs} ms): ` +
        'otherwise a job still running is handed to a second worker',
    )
  }
}

export async function runWorker(options: WorkerOptions): Promise<WorkerSummary> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
  checkTimeout(timeoutMs, options.leaseMs)
  if (options.queues.length === 0) throw new QueueConfigError('The worker needs at least one queue')
  const workerId = options.workerId ?? crypto.randomUUID()
  const idleMs = options.idleMs ?? 1000
  const signal = options.signal
  let processed = 0
  let failed = 0
  let driverErrors = 0
  const stop = (reason: WorkerStop): WorkerSummary => ({ reason, processed, failed })

  for (;;) {
    if (signal?.aborted) return stop('stopped')
    if (options.maxJobs !== undefined && processed >= options.maxJobs) return stop('max-jobs')
    let reservation
    try {
      reservation = await options.driver.reserve(options.queues, workerId)
      driverErrors = 0
    } catch (error) {
      if (++driverErrors >= MAX_DRIVER_ERRORS) throw error
      options.onEvent?.({ type: 'error', error: error as Error })
      await pause(idleMs, signal)
      continue
    }
    if (reservation === undefined) {
      if (options.stopWhenEmpty) return stop('empty')
      await pause(idleMs, signal)
      continue
    }
    const definition = options.jobs.get(reservation.name)
    options.onEvent?.({
      type: 'started',
      job: jobInfo(reservation, definition),
      timeoutMs: definition?.timeout ?? timeoutMs,
    })
    const result = await runJob(reservation, definition, {
      services: options.services,
      timeoutMs,
      leaseMs: options.leaseMs,
      random: options.random,
    })
    processed++
    if (result.outcome === 'failed') failed++
    options.onEvent?.({ type: 'finished', result })
    // The timed-out run may still be going: only a new process is sure to be rid of it.
    if (result.timedOut) return stop('timeout')
  }
}

/** Waits `ms`, or less when `signal` aborts. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve()
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal?.addEventListener('abort', done, { once: true })
  })
}
