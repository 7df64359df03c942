/**
 * What a queue driver does: store jobs, hand each to one worker at a time
 * under a lease, and keep the ones that failed for good. The `sync`,
 * `database` and `redis` drivers pass one conformance suite
 * (tests/queue/conformance.ts); docs/queues.md says where they differ.
 */
import type { BackoffOptions } from './backoff.ts'
import type { JobDefinition, JobServices, JsonValue } from './job.ts'

/** A job as dispatched, ready to store. */
export interface NewJob {
  name: string
  queue: string
  payload: JsonValue
  /** Runs in all, first one included. */
  maxAttempts: number
  backoff: BackoffOptions
  /** The job's own timeout (ms), when it declares one. */
  timeoutMs: number | undefined
  /** Not before this many milliseconds from now. */
  delayMs: number
}

/** A job a worker holds: its data, and what the worker may do with it. */
export interface Reservation {
  readonly id: string
  readonly name: string
  readonly queue: string
  readonly payload: JsonValue
  /** This run's number: 1 the first time; a run whose worker died counts too. */
  readonly attempt: number
  readonly maxAttempts: number
  readonly backoff: BackoffOptions
  readonly timeoutMs: number | undefined
  /** Extends the lease (a job still running); false when it was lost (another worker may hold the job now). */
  renew(): Promise<boolean>
  /** Done: the job leaves the queue. False when the lease was lost before (the job may run again elsewhere). */
  complete(): Promise<boolean>
  /** Another run after `delayMs`, remembering the error. */
  retry(delayMs: number, error: JobError): Promise<void>
  /** Failed for good: kept with its error for `queue:retry`. */
  fail(error: JobError): Promise<void>
}

/** An error as the queue keeps it. */
export interface JobError {
  message: string
  stack: string | undefined
}

export interface QueueCounts {
  queue: string
  /** Ready to run now. */
  pending: number
  /** Waiting for their time (dispatched with a delay, or a retry's backoff). */
  delayed: number
  /** Held by a worker now. */
  reserved: number
  failed: number
}

export interface FailedJob {
  id: string
  queue: string
  name: string
  payload: JsonValue
  attempts: number
  error: string
  stack: string | undefined
  /** ISO 8601. */
  failedAt: string
}

/**
 * What `push` answers beside the id, from a driver that ran the job at once
 * (the sync driver): whether it failed for good, so that the code that
 * dispatched it (a request's trace) can say so instead of only stderr.
 */
export interface PushedJob {
  id: string
  /** The error it failed for good with; undefined when it succeeded. */
  failed: JobError | undefined
}

export interface QueueDriver {
  /** `sync`, `database`, `redis`, ... */
  readonly name: string
  /**
   * Stores a job; returns its id. The sync driver runs it right away instead
   * (it is given the definition and the services for that), and returns the
   * id with the run's outcome (`PushedJob`).
   */
  push(job: NewJob, definition: JobDefinition<never>, services: JobServices): Promise<string | PushedJob>
  /** The first job due on the first of `queues` (in that order) that has one, under a fresh lease for `worker`. */
  reserve(queues: readonly string[], worker: string): Promise<Reservation | undefined>
  /** Counts per queue (every queue that holds a job or a failed job), sorted by name. */
  counts(): Promise<QueueCounts[]>
  /** Failed jobs, newest first. */
  failed(options?: { queue?: string; limit?: number }): Promise<FailedJob[]>
  /** Puts failed jobs back in their queue with fresh attempts; returns how many. */
  retryFailed(ids: readonly string[] | 'all'): Promise<number>
  /** Deletes failed jobs (of one queue, or all); returns how many. */
  flushFailed(queue?: string): Promise<number>
  close(): Promise<void>
}
