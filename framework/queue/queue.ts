/**
 * The queue an app dispatches jobs to (`c.queue`, `createQueue(driver)`):
 * one interface whatever the driver. Delivery is at least once: a job whose
 * worker dies runs again, so write jobs that can run twice (docs/queues.md).
 *
 * @example
 * const queue = createQueue(databaseQueueDriver(db))
 * await queue.dispatch(sendWelcome, { userId: 1 }, { delay: 5_000, queue: 'mail' })
 */
import type { BackoffOptions } from './backoff.ts'
import type { JobError, QueueDriver } from './driver.ts'
import type { JobDefinition, JobServices, JsonValue } from './job.ts'

export interface DispatchOptions {
  /** Milliseconds before it may run; default 0. */
  delay?: number
  /** Overrides the job's queue (default `default`). */
  queue?: string
  /** Overrides the job's attempts (default 3). */
  attempts?: number
  /** Overrides the job's backoff. */
  backoff?: BackoffOptions
}

export interface DispatchedJob {
  id: string
  name: string
  queue: string
  /** Only from a driver that ran the job at once (sync): the error it failed for good with (dispatch still resolves, as with a real queue). */
  failed?: JobError
}

export interface Queue {
  readonly driver: QueueDriver
  dispatch<Payload>(job: JobDefinition<Payload>, payload: Payload, options?: DispatchOptions): Promise<DispatchedJob>
}

export const DEFAULT_QUEUE = 'default'
export const DEFAULT_ATTEMPTS = 3
const QUEUE_NAME = /^[A-Za-z0-9][\w.-]{0,63}$/

/** Services handed to jobs the sync driver runs (the worker hands its own). */
export type QueueServices = Omit<JobServices, 'queue'>

export function createQueue(driver: QueueDriver, services: QueueServices = {}): Queue {
  const queue: Queue = {
    driver,
    async dispatch(job, payload, options = {}) {
      const name = options.queue ?? job.queue ?? DEFAULT_QUEUE
      if (!QUEUE_NAME.test(name)) throw new TypeError(`Queue name "${name}": use 1 to 64 letters, digits, '.', '_' or '-'`)
      const delay = options.delay ?? 0
      if (!(delay >= 0) || !Number.isFinite(delay)) throw new TypeError(`dispatch(${job.name}): delay must be 0 or more milliseconds`)
      const attempts = options.attempts ?? job.attempts ?? DEFAULT_ATTEMPTS
      if (!Number.isInteger(attempts) || attempts < 1) throw new TypeError(`dispatch(${job.name}): attempts must be a whole number of at least 1`)
      const pushed = await driver.push(
        {
          name: job.name,
          queue: name,
          payload: asJson(job.name, payload),
          maxAttempts: attempts,
          backoff: options.backoff ?? job.backoff ?? {},
          timeoutMs: job.timeout,
          delayMs: Math.round(delay),
        },
        job as JobDefinition<never>,
        { ...services, queue },
      )
      if (typeof pushed === 'string') return { id: pushed, name: job.name, queue: name }
      const dispatched: DispatchedJob = { id: pushed.id, name: job.name, queue: name }
      return pushed.failed === undefined ? dispatched : { ...dispatched, failed: pushed.failed }
    },
  }
  return queue
}

/** The payload as a worker will see it (through JSON), so a Date or a Map is caught in development, not in production. */
function asJson(name: string, payload: unknown): JsonValue {
  let text: string | undefined
  try {
    text = JSON.stringify(payload)
  } catch (error) {
    throw new TypeError(`dispatch(${name}): the payload cannot be stored as JSON (${(error as Error).message})`)
  }
  if (text === undefined) throw new TypeError(`dispatch(${name}): the payload cannot be stored as JSON`)
  return JSON.parse(text) as JsonValue
}
