/**
 * Queues: jobs dispatched now, run later by `svc queue:work`, on one
 * interface whatever the driver (`sync`, `database`; `redis` in svc/node).
 * See docs/queues.md.
 */
export { defineJob, isJobDefinition, type JobContext, type JobDefinition, type JobInfo, type JobOptions, type JobServices, type JsonValue } from './job.ts'
export { backoffDelay, DEFAULT_BACKOFF, type BackoffOptions } from './backoff.ts'
export type { FailedJob, JobError, NewJob, PushedJob, QueueCounts, QueueDriver, Reservation } from './driver.ts'
export { createQueue, DEFAULT_ATTEMPTS, DEFAULT_QUEUE, type DispatchedJob, type DispatchOptions, type Queue, type QueueServices } from './queue.ts'
export { jobRegistry, type JobRegistry } from './registry.ts'
export { runJob, asJobError, JobTimeoutError, LeaseLostError, PermanentJobError, type JobOutcome, type JobRunResult, type RunJobOptions } from './run-job.ts'
export {
  runWorker,
  checkTimeout,
  pause,
  QueueConfigError,
  DEFAULT_TIMEOUT_MS,
  type WorkerEvent,
  type WorkerOptions,
  type WorkerStop,
  type WorkerSummary,
} from './worker.ts'
export { syncQueueDriver, type SyncQueueOptions } from './sync-driver.ts'
export { databaseQueueDriver, DEFAULT_LEASE_MS, type DatabaseQueueOptions } from './database-driver.ts'
export { queueMigration, QUEUE_MIGRATION_SOURCE } from './schema.ts'
