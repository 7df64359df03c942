/**
 * One run of one reserved job: its timeout, the lease kept alive while it
 * runs, and what happens after (done, another run after a backoff, or failed
 * for good). The worker loop and the sync driver both run jobs through this.
 */
import { backoffDelay } from './backoff.ts'
import type { JobError, Reservation } from './driver.ts'
import { jobContext, type JobDefinition, type JobInfo, type JobServices } from './job.ts'

/** Thrown by a job that must not run again (a payload that can never work): it fails at once, attempts left or not. */
export class PermanentJobError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'PermanentJobError'
  }
}

export class JobTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`The job ran longer than its timeout of ${timeoutMs} ms`)
    this.name = 'JobTimeoutError'
  }
}

export class LeaseLostError extends Error {
  constructor() {
    super('The worker lost the lease of this job (another worker may be running it)')
    this.name = 'LeaseLostError'
  }
}

export interface RunJobOptions {
  services: JobServices
  /** A run's timeout unless the job declares its own (ms). */
  timeoutMs: number
  /** The lease's length: renewed every third of it while the job runs. None for the sync driver. */
  leaseMs?: number
  random?: () => number
}

export type JobOutcome = 'done' | 'retry' | 'failed' | 'lost'

export interface JobRunResult {
  job: JobInfo
  outcome: JobOutcome
  durationMs: number
  error?: JobError
  /** With `retry`: when the next run may start. */
  retryInMs?: number
  /** The run passed its timeout: its code may still be running, so the worker process should end. */
  timedOut: boolean
}

/** Which job and run a reservation is, with the subject its definition's `describe` names (none when that throws: a malformed payload fails in `handle`, where it is reported). */
export function jobInfo(reservation: Reservation, definition: JobDefinition<never> | undefined): JobInfo {
  const job: JobInfo = {
    id: reservation.id,
    name: reservation.name,
    queue: reservation.queue,
    attempt: reservation.attempt,
    maxAttempts: reservation.maxAttempts,
  }
  let subject: string | undefined
  try {
    subject = definition?.describe?.(reservation.payload as never)
  } catch {
    subject = undefined
  }
  return typeof subject === 'string' && subject !== '' ? { ...job, subject } : job
}

export async function runJob(reservation: Reservation, definition: JobDefinition<never> | undefined, options: RunJobOptions): Promise<JobRunResult> {
  const job = jobInfo(reservation, definition)
  const started = performance.now()
  const result = (outcome: JobOutcome, extra: Partial<JobRunResult> = {}): JobRunResult => ({
    job,
    outcome,
    durationMs: Math.round((performance.now() - started) * 1000) / 1000,
    timedOut: false,
    ...extra,
  })

  if (definition === undefined) {
    const error = asJobError(new PermanentJobError(`No job named "${reservation.name}" is known to this worker (is its file in app/jobs/?)`))
    await reservation.fail(error)
    return result('failed', { error })
  }
  if (reservation.attempt > reservation.maxAttempts) {
    const error = asJobError(
      new PermanentJobError(
        `The job was started ${reservation.attempt - 1} time(s), its limit, without finishing: its worker stopped or lost the job each time`,
      ),
    )
    await reservation.fail(error)
    return result('failed', { error })
  }

  const timeoutMs = definition.timeout ?? options.timeoutMs
  const controller = new AbortController()
  let lost = false
  const aborted = new Promise<never>((_, reject) => {
    controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true })
  })
  aborted.catch(() => {})
  const timer = setTimeout(() => controller.abort(new JobTimeoutError(timeoutMs)), timeoutMs)
  const heartbeat =
    options.leaseMs === undefined
      ? undefined
      : setInterval(() => {
          reservation.renew().then(
            (kept) => {
              if (!kept && !controller.signal.aborted) {
                lost = true
                controller.abort(new LeaseLostError())
              }
            },
            () => {}, // a failed renewal is tried again at the next beat; the lease has two more thirds
          )
        }, Math.max(10, Math.floor(options.leaseMs / 3)))

  let failure: unknown
  try {
    await Promise.race([definition.handle(reservation.payload as never, jobContext(options.services, job, controller.signal)), aborted])
  } catch (error) {
    failure = error
  } finally {
    clearTimeout(timer)
    if (heartbeat !== undefined) clearInterval(heartbeat)
  }

  if (lost) return result('lost', { error: asJobError(new LeaseLostError()) })
  if (failure === undefined) {
    return (await reservation.complete()) ? result('done') : result('lost', { error: asJobError(new LeaseLostError()) })
  }
  const error = asJobError(failure)
  const timedOut = failure instanceof JobTimeoutError
  // By name: the job may have imported another copy of svc than the worker's.
  const permanent = failure instanceof Error && failure.name === 'PermanentJobError'
  if (permanent || reservation.attempt >= reservation.maxAttempts) {
    await reservation.fail(error)
    return result('failed', { error, timedOut })
  }
  const retryInMs = backoffDelay(reservation.attempt, reservation.backoff, options.random)
  await reservation.retry(retryInMs, error)
  return result('retry', { error, retryInMs, timedOut })
}

export function asJobError(error: unknown): JobError {
  if (error instanceof Error) return { message: `${error.name === 'Error' ? '' : `${error.name}: `}${error.message}`, stack: error.stack }
  return { message: String(error), stack: undefined }
}
