/**
 * The `database` driver: jobs in the app's own database (the `jobs` and
 * `failed_jobs` tables of `svc make:queue-table`), a libSQL file or a
 * `libsql://` server that several hosts share.
 *
 * A worker claims a job with one statement, `UPDATE ... WHERE id = (SELECT
 * ... LIMIT 1) RETURNING ...`: SQLite has no `SKIP LOCKED`, and a SELECT
 * followed by an UPDATE would hand one job to two workers. The claim moves the
 * job's `available_at` to the end of its lease (`retry_after`), so a job whose
 * worker died is due again, and claimed again, once the lease has run out;
 * a running job's worker renews the lease. Every later write about a job
 * names the claim's token (`reserved_by`): a worker that lost its lease
 * cannot complete or fail a job another worker now holds.
 */
import type { Database } from '../database/database.ts'
import { storableText } from '../database/argument-check.ts'
import type { FailedJob, JobError, QueueCounts, QueueDriver, Reservation } from './driver.ts'
import type { JsonValue } from './job.ts'
import { QUEUE_TABLES_FIX } from './schema.ts'

export interface DatabaseQueueOptions {
  /** The lease (`retry_after`) in milliseconds; default 90000. */
  leaseMs?: number
  /** Milliseconds since the epoch (tests move it); default Date.now. */
  now?: () => number
}

export const DEFAULT_LEASE_MS = 90_000

interface JobRow {
  id: number
  queue: string
  name: string
  payload: string
  attempts: number
  max_attempts: number
  backoff: string
  timeout_ms: number | null
}

interface FailedRow {
  id: number
  queue: string
  name: string
  payload: string
  attempts: number
  error: string
  stack: string | null
  failed_at: string
}

const CLAIM = `update jobs
  set attempts = attempts + 1, reserved_at = ?, reserved_by = ?, available_at = ?
  where id = (select id from jobs where queue = ? and available_at <= ? order by available_at, id limit 1)
  returning id, queue, name, payload, attempts, max_attempts, backoff, timeout_ms`

export function databaseQueueDriver(db: Database, options: DatabaseQueueOptions = {}): QueueDriver {
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS
  const now = options.now ?? Date.now

  function reservation(row: JobRow, token: string): Reservation {
    const id = row.id
    const failStatements = (error: JobError) => [
      {
        sql: `insert into failed_jobs (job_id, queue, name, payload, attempts, max_attempts, backoff, timeout_ms, error, stack, failed_at)
          select id, queue, name, payload, attempts, max_attempts, backoff, timeout_ms, ?, ?, ? from jobs where id = ? and reserved_by = ?`,
        args: [storableText(error.message), error.stack === undefined ? null : storableText(error.stack), new Date(now()).toISOString(), id, token],
      },
      { sql: 'delete from jobs where id = ? and reserved_by = ?', args: [id, token] },
    ]
    return {
      id: String(id),
      name: row.name,
      queue: row.queue,
      payload: JSON.parse(row.payload) as JsonValue,
      attempt: row.attempts,
      maxAttempts: row.max_attempts,
      backoff: JSON.parse(row.backoff) as Reservation['backoff'],
      timeoutMs: row.timeout_ms ?? undefined,
      async renew() {
        const result = await db.execute('update jobs set available_at = ? where id = ? and reserved_by = ?', [now() + leaseMs, id, token])
        return result.rowsAffected === 1
      },
      async complete() {
        const result = await db.execute('delete from jobs where id = ? and reserved_by = ?', [id, token])
        return result.rowsAffected === 1
      },
      async retry(delayMs) {
        await db.execute('update jobs set available_at = ?, reserved_at = null, reserved_by = null where id = ? and reserved_by = ?', [
          now() + delayMs,
          id,
          token,
        ])
      },
      async fail(error) {
        await db.batch(failStatements(error))
      },
    }
  }

  return {
    name: 'database',
    async push(job) {
      const at = now()
      try {
        const row = await db.first<{ id: number }>(
          `insert into jobs (queue, name, payload, attempts, max_attempts, backoff, timeout_ms, available_at, created_at)
            values (?, ?, ?, 0, ?, ?, ?, ?, ?) returning id`,
          [job.queue, job.name, JSON.stringify(job.payload), job.maxAttempts, JSON.stringify(job.backoff), job.timeoutMs ?? null, at + job.delayMs, at],
        )
        return String(row!.id)
      } catch (error) {
        // An app without the queue tables: say how to get them rather than "no such table".
        if (/no such table/i.test((error as Error).message)) {
          throw new Error(`dispatch(${job.name}): the queue tables do not exist (${QUEUE_TABLES_FIX}): ${(error as Error).message}`, { cause: error })
        }
        throw error
      }
    },
    async reserve(queues, worker) {
      for (const queue of queues) {
        const at = now()
        const token = `${worker}:${crypto.randomUUID()}`
        const row = await db.first<JobRow>(CLAIM, [at, token, at + leaseMs, queue, at])
        if (row !== undefined) return reservation(row, token)
      }
      return undefined
    },
    async counts() {
      const at = now()
      const active = await db.all<{ queue: string; pending: number; delayed: number; reserved: number }>(
        `select queue,
          sum(case when available_at <= ? then 1 else 0 end) as pending,
          sum(case when available_at > ? and reserved_at is null then 1 else 0 end) as delayed,
          sum(case when available_at > ? and reserved_at is not null then 1 else 0 end) as reserved
          from jobs group by queue`,
        [at, at, at],
      )
      const failed = await db.all<{ queue: string; failed: number }>('select queue, count(*) as failed from failed_jobs group by queue')
      const byQueue = new Map<string, QueueCounts>()
      for (const row of active) byQueue.set(row.queue, { queue: row.queue, pending: row.pending, delayed: row.delayed, reserved: row.reserved, failed: 0 })
      for (const row of failed) {
        const counts = byQueue.get(row.queue) ?? { queue: row.queue, pending: 0, delayed: 0, reserved: 0, failed: 0 }
        counts.failed = row.failed
        byQueue.set(row.queue, counts)
      }
      return [...byQueue.values()].sort((a, b) => a.queue.localeCompare(b.queue))
    },
    async failed(filter = {}) {
      const rows = await db.all<FailedRow>(
        `select id, queue, name, payload, attempts, error, stack, failed_at from failed_jobs
          ${filter.queue === undefined ? '' : 'where queue = ?'} order by id desc limit ?`,
        [...(filter.queue === undefined ? [] : [filter.queue]), filter.limit ?? -1],
      )
      return rows.map(
        (row): FailedJob => ({
          id: String(row.id),
          queue: row.queue,
          name: row.name,
          payload: JSON.parse(row.payload) as JsonValue,
          attempts: row.attempts,
          error: row.error,
          stack: row.stack ?? undefined,
          failedAt: row.failed_at,
        }),
      )
    },
    async retryFailed(ids) {
      if (ids !== 'all' && ids.length === 0) return 0
      const numeric = ids === 'all' ? [] : ids.map(Number).filter(Number.isSafeInteger)
      if (ids !== 'all' && numeric.length === 0) return 0
      const where = ids === 'all' ? '' : `where id in (${numeric.map(() => '?').join(', ')})`
      const at = now()
      const [inserted] = await db.batch([
        {
          sql: `insert into jobs (queue, name, payload, attempts, max_attempts, backoff, timeout_ms, available_at, created_at)
            select queue, name, payload, 0, max_attempts, backoff, timeout_ms, ?, ? from failed_jobs ${where} order by id`,
          args: [at, at, ...numeric],
        },
        { sql: `delete from failed_jobs ${where}`, args: numeric },
      ])
      return inserted!.rowsAffected
    },
    async flushFailed(queue) {
      const result = await db.execute(`delete from failed_jobs${queue === undefined ? '' : ' where queue = ?'}`, queue === undefined ? [] : [queue])
      return result.rowsAffected
    },
    async close() {},
  }
}
