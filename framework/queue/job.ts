/**
 * A job: a named piece of work with a JSON payload, run later by a worker
 * (`svc queue:work`). The name is what the queue stores, so a worker finds
 * the same job after a rename of its variable or file; keep it stable.
 *
 * @example
 * export const sendWelcome = defineJob('send-welcome', {
 *   attempts: 5,
 *   async handle(payload: { userId: number }, { db, mailer }) {
 *     const user = await db.first<{ email: string }>('select email from users where id = ?', [payload.userId])
 *     if (user) await mailer.send({ to: user.email, subject: 'Welcome', text: '...' })
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

/**
 * What the host (the `svc` worker, or the app for the sync driver) gives every
 * job. Optional here, for a host that has no database or mailer (a fetch
 * runtime's `runWorker({ services })`); a job's `handle` sees them all
 * (`JobContext`).
 */
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
  /** What this run is about when the name alone does not say (a `svc.listener` job: the listener's name): the job's `describe`. */
  readonly subject?: string
}

/**
 * What a job's `handle` receives beside its payload: the services, always
 * there (the `svc` worker and the app's queue give every one), so that
 * `{ db, mailer }` can be used as they are. A host that was not given one
 * (`runWorker({ services })` without `mailer`) hands the job a stand-in that
 * throws, naming the missing service, when the job uses it.
 */
export interface JobContext extends Required<JobServices> {
  readonly job: JobInfo
  /**
   * Aborted when the run passes its timeout or its worker loses the job's
   * lease (another worker may run it now): stop and throw.
   */
  readonly signal: AbortSignal
}

/** The context a run's `handle` gets: the host's services, each missing one as a stand-in that says so when used. */
export function jobContext(services: JobServices, job: JobInfo, signal: AbortSignal): JobContext {
  return { ...servicesOrStandIns(services, (name) => `This job's worker was given no ${name} (services.${name})`), job, signal }
}

/**
 * Every service, a missing one replaced by a stand-in that throws when used,
 * `missing(name)` saying why it is missing: handlers then use `{ db }` as it
 * is, and a host that lacks one fails where it is used, naming it.
 */
export function servicesOrStandIns(services: JobServices, missing: (name: keyof JobServices) => string): Required<JobServices> {
  return {
    db: services.db ?? missingService('db', missing),
    queue: services.queue ?? missingService('queue', missing),
    mailer: services.mailer ?? missingService('mailer', missing),
    config: services.config ?? missingService('config', missing),
  }
}

function missingService<T extends object>(name: keyof JobServices, missing: (name: keyof JobServices) => string): T {
  return new Proxy({} as T, {
    get(_, key) {
      // Not a use: `await`, inspection and coercion look for these.
      if (typeof key === 'symbol' || key === 'then' || key === 'toJSON') return undefined
      throw new Error(`${missing(name)}, so ${name}.${key} cannot be used here`)
    },
  })
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
  /**
   * Names what one run is about, for the worker's line: a job whose name is
   * shared by different work (the queued-listener job) says which.
   */
  describe?(payload: Payload): string | undefined
}

export interface JobDefinition<Payload = unknown> {
  readonly kind: 'svc.job'
  readonly name: string
  readonly queue: string | undefined
  readonly attempts: number | undefined
  readonly backoff: BackoffOptions | undefined
  readonly timeout: number | undefined
  readonly describe: ((payload: Payload) => string | undefined) | undefined
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
    describe: options.describe,
    handle: options.handle,
  }
}

export function isJobDefinition(value: unknown): value is JobDefinition<never> {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'svc.job'
}
