/**
 * A job: a named piece of work with a JSON payload, run later by a worker
 * (`svc queue:work`). The name is what the queue stores, so a worker finds
 * the same job after a rename of its variable or file; keep it stable.
 *
 * @example
 * export const sendWelcome = defineJob('send-welcome', {
 *   attempts: 5,
 *   async handle(payload: { userId: number }, { db }) {
 *     const user = await db!.first('select email from users where id = ?', [payload.userId])
 *     ...
 *   },
 * })
 * await c.queue.dispatch(sendWelcome, { userId: 1 }, { delay: 60_000 })
 */
import type { AppConfig } from '../config/config.ts'
import type { Database } from '../database/database.ts'
import type { Mailer } from '../mail/index.ts'
import type { BackoffOptions } from './backoff.ts'
import type { Queue } from './queue.ts'

/**
 * What survives JSON.stringify and JSON.parse unchanged: a payload is stored
 * as JSON (dispatch sends it through JSON first, so a Date arrives as a string
 * in development as in production).
 */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue | undefined }

/** What the host (the `svc` worker, or the app for the sync driver) gives every job. */
export interface JobServices {
  readonly db?: Database
  /** To dispatch further jobs. */
  readonly queue?: Queue
  readonly mailer?: Mailer
  readonly config?: AppConfig
}

/** Which job this is, and which run. */
export interface JobInfo {
  /** The queue's id of this job (a string whatever the driver). */
  readonly id: string
  readonly name: string
  readonly queue: string
  /** 1 on the first run, 2 on the first retry, ... */
  readonly attempt: number
  readonly maxAttempts: number
}

/** What a job's `handle` receives beside its payload. */
export interface JobContext extends JobServices {
  readonly job: JobInfo
  /**
   * Aborted when the run passes its timeout or its worker loses the job's
   * lease (another worker may run it now): stop and throw.
   */
  readonly signal: AbortSignal
}

export interface JobOptions<Payload> {
  handle(payload: Payload, job: JobContext): Promise<void> | void
  /** The queue it goes to unless dispatch says otherwise; default `default`. */
  queue?: string
  /** Runs in all, first one included; default 3. */
  attempts?: number
  backoff?: BackoffOptions
  /** Milliseconds one run may take; default the worker's `--timeout`. */
  timeout?: number
}

export interface JobDefinition<Payload = unknown> {
  readonly kind: 'svc.job'
  readonly name: string
  readonly queue: string | undefined
  readonly attempts: number | undefined
  readonly backoff: BackoffOptions | undefined
  readonly timeout: number | undefined
  handle(payload: Payload, job: JobContext): Promise<void> | void
}

const JOB_NAME = /^[A-Za-z][\w.:-]{0,127}$/

export function defineJob<Payload>(name: string, options: JobOptions<Payload>): JobDefinition<Payload> {
  if (!JOB_NAME.test(name)) {
    throw new TypeError(`Job name "${name}": use 1 to 128 letters, digits, '.', ':', '_' or '-', starting with a letter`)
  }
  if (options.attempts !== undefined && (!Number.isInteger(options.attempts) || options.attempts < 1)) {
    throw new TypeError(`Job "${name}": attempts must be a whole number of at least 1`)
  }
  if (options.timeout !== undefined && !(options.timeout > 0)) throw new TypeError(`Job "${name}": timeout must be positive (milliseconds)`)
  return {
    kind: 'svc.job',
    name,
    queue: options.queue,
    attempts: options.attempts,
    backoff: options.backoff,
    timeout: options.timeout,
    handle: options.handle,
  }
}

export function isJobDefinition(value: unknown): value is JobDefinition<never> {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'svc.job'
}
