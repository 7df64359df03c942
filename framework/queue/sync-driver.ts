/**
 * The `sync` driver: `dispatch` runs the job at once, in the dispatching
 * process, and resolves when it is done (tests, development). Retries follow
 * at once too (no backoff wait, no delay); a job that fails for good is kept
 * in memory for `failed()`/`retryFailed()` and logged to stderr, and
 * `dispatch` does not throw: the same as with a real queue. `push` answers
 * the error too (`PushedJob.failed`, `DispatchedJob.failed`), so that a
 * request's trace records the queued listener that failed.
 */
import type { FailedJob, JobError, NewJob, PushedJob, QueueCounts, QueueDriver, Reservation } from './driver.ts'
import type { JobDefinition, JobServices } from './job.ts'
import { runJob } from './run-job.ts'
import { DEFAULT_TIMEOUT_MS } from './worker.ts'

export interface SyncQueueOptions {
  /** A run's timeout unless the job declares its own (ms); default 60000. */
  timeoutMs?: number
  /** Where a job that failed for good is reported; default console.error. */
  onFailed?: (job: FailedJob) => void
}

interface KeptFailure {
  failed: FailedJob
  job: NewJob
  definition: JobDefinition<never>
  services: JobServices
}

export function syncQueueDriver(options: SyncQueueOptions = {}): QueueDriver {
  let nextId = 0
  const failures: KeptFailure[] = []
  // The subject names which of the work one job name covers failed (svc.listener: the listener), as queue:work's lines do.
  const report: (job: FailedJob, subject: string | undefined) => void =
    options.onFailed ?? ((job, subject) => console.error(`[svc queue] job ${job.name}${subject === undefined ? '' : ` ${subject}`} #${job.id} failed: ${job.error}`))

  /** Runs the job, retries included; resolves with the error it failed for good with, if it did. */
  async function run(id: string, job: NewJob, definition: JobDefinition<never>, services: JobServices): Promise<JobError | undefined> {
    for (let attempt = 1; ; attempt++) {
      let failedFor: JobError | undefined
      const reservation: Reservation = {
        id,
        name: job.name,
        queue: job.queue,
        payload: job.payload,
        attempt,
        maxAttempts: job.maxAttempts,
        backoff: job.backoff,
        timeoutMs: job.timeoutMs,
        renew: async () => true,
        complete: async () => true,
        retry: async () => {},
        fail: async (error) => {
          failedFor = error
        },
      }
      const result = await runJob(reservation, definition, { services, timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS })
      if (result.outcome === 'retry') continue
      if (failedFor !== undefined) {
        const failed: FailedJob = {
          id,
          queue: job.queue,
          name: job.name,
          payload: job.payload,
          attempts: attempt,
          error: failedFor.message,
          stack: failedFor.stack,
          failedAt: new Date().toISOString(),
        }
        failures.push({ failed, job, definition, services })
        report(failed, result.job.subject)
      }
      return failedFor
    }
  }

  return {
    name: 'sync',
    async push(job, definition, services): Promise<PushedJob> {
      const id = String(++nextId)
      return { id, failed: await run(id, job, definition, services) }
    },
    async reserve() {
      return undefined
    },
    async counts() {
      const byQueue = new Map<string, QueueCounts>()
      for (const { failed } of failures) {
        const counts = byQueue.get(failed.queue) ?? { queue: failed.queue, pending: 0, delayed: 0, reserved: 0, failed: 0 }
        counts.failed++
        byQueue.set(failed.queue, counts)
      }
      return [...byQueue.values()].sort((a, b) => a.queue.localeCompare(b.queue))
    },
    async failed(filter = {}) {
      return failures
        .map((kept) => kept.failed)
        .filter((failed) => filter.queue === undefined || failed.queue === filter.queue)
        .reverse()
        .slice(0, filter.limit ?? Number.POSITIVE_INFINITY)
    },
    async retryFailed(ids) {
      const chosen = failures.filter((kept) => ids === 'all' || ids.includes(kept.failed.id))
      for (const kept of chosen) failures.splice(failures.indexOf(kept), 1)
      for (const kept of chosen) await run(kept.failed.id, kept.job, kept.definition, kept.services)
      return chosen.length
    },
    async flushFailed(queue) {
      const chosen = failures.filter((kept) => queue === undefined || kept.failed.queue === queue)
      for (const kept of chosen) failures.splice(failures.indexOf(kept), 1)
      return chosen.length
    },
    async close() {},
  }
}
