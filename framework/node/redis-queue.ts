/**
 * The `redis` queue driver, on BullMQ (Node only): for apps that run workers
 * on several hosts. Same job definitions and the same worker loop as the
 * other drivers; BullMQ holds the jobs, the leases (its job locks,
 * `lockDuration` = the lease) and the failed set.
 *
 * Where it differs from the database driver (docs/queues.md): a job whose
 * worker died is found by BullMQ's stalled-job check, so it runs again within
 * about the lease plus one check interval; queue names are remembered in a set
 * (`<prefix>:svc:queues`) so `queue:status` can list them; ids are
 * `<queue>:<BullMQ id>`.
 *
 * @example
 * const driver = redisQueueDriver({ url: 'redis://127.0.0.1:6379', leaseMs: 90_000 })
 */
import { Queue as BullQueue, Worker as BullWorker, type Job as BullJob } from 'bullmq'
import { Redis } from 'ioredis'
import type { FailedJob, JobError, QueueCounts, QueueDriver, Reservation } from '../queue/driver.ts'
import type { JsonValue } from '../queue/job.ts'
import { DEFAULT_LEASE_MS } from '../queue/database-driver.ts'

export interface RedisQueueOptions {
  /** `redis://[user:password@]host:port[/db]` */
  url: string
  /** Prefix of every key; default `svc`. */
  prefix?: string
  /** The lease (BullMQ's lock duration) in milliseconds; default 90000. */
  leaseMs?: number
}

/** What svc stores as a BullMQ job's data. */
interface StoredJob {
  payload: JsonValue
  backoff: Reservation['backoff']
  timeoutMs: number | null
}

/** The error BullMQ is handed on a retry: its backoff strategy reads the delay svc computed. */
class RetryError extends Error {
  constructor(
    error: JobError,
    readonly retryDelayMs: number,
  ) {
    super(error.message)
    this.name = 'JobError'
    this.stack = error.stack
  }
}

const STALLED_RUNS_ALLOWED = 1_000_000

export function redisQueueDriver(options: RedisQueueOptions): QueueDriver {
  const prefix = options.prefix ?? 'svc'
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS
  // Both connect on first use: an app that never queues opens no connection.
  // Dispatch, counts and the failed set give up after a few tries, so a request or
  // `queue:status` says that Redis is down instead of hanging; a worker's fetches
  // wait for Redis to come back (BullMQ requires that of a worker's connection).
  const client = new Redis(options.url, { maxRetriesPerRequest: 2, connectTimeout: 5000, lazyConnect: true })
  const workerClient = new Redis(options.url, { maxRetriesPerRequest: null, lazyConnect: true })
  // A connection error reaches the caller as the rejected command (E_QUEUE_UNREACHABLE in the CLI); with no
  // listener ioredis also printed `[ioredis] Unhandled error event` and a stack for every reconnect.
  // The last one is kept: a command given up on says only "Reached the max retries per request limit", and why is here.
  let connectionError: Error | undefined
  for (const connection of [client, workerClient]) {
    connection.on('error', (error: Error) => {
      connectionError = error
    })
  }

  /** `work`, whose give-up for want of Redis is the connection's error (`connect ECONNREFUSED 127.0.0.1:6379`), the give-up as its cause. */
  function sayingWhy<T>(work: Promise<T>): Promise<T> {
    return work.catch((error: unknown) => {
      if (error instanceof Error && error.name === 'MaxRetriesPerRequestError' && connectionError !== undefined) {
        throw new Error(connectionError.message, { cause: error })
      }
      throw error
    })
  }
  const queuesKey = `${prefix}:svc:queues`
  const queues = new Map<string, BullQueue>()
  const workers = new Map<string, BullWorker>()

  function queueOf(name: string): BullQueue {
    let queue = queues.get(name)
    if (queue === undefined) {
      queue = new BullQueue(name, { connection: client, prefix })
      queues.set(name, queue)
    }
    return queue
  }

  async function workerOf(name: string): Promise<BullWorker> {
    let worker = workers.get(name)
    if (worker === undefined) {
      worker = new BullWorker(name, null, {
        connection: workerClient,
        prefix,
        autorun: false,
        lockDuration: leaseMs,
        // Checked about twice per lease: a dead worker's job runs again within about 1.5 leases.
        stalledInterval: Math.max(500, Math.floor(leaseMs / 2)),
        // svc counts a stalled run as an attempt itself (the job's attempts bound it), as the database driver does.
        maxStalledCount: STALLED_RUNS_ALLOWED,
        settings: { backoffStrategy: (_made: number, _type?: string, error?: Error) => (error instanceof RetryError ? error.retryDelayMs : 0) },
      })
      worker.on('error', () => {}) // connection trouble surfaces as a failed reserve(), which the worker loop retries
      workers.set(name, worker)
      await worker.startStalledCheckTimer()
    }
    return worker
  }

  function reservation(queue: string, job: BullJob, token: string): Reservation {
    const data = job.data as StoredJob
    return {
      id: `${queue}:${job.id}`,
      name: job.name,
      queue,
      payload: data.payload,
      attempt: job.attemptsStarted,
      maxAttempts: job.opts.attempts ?? 1,
      backoff: data.backoff,
      timeoutMs: data.timeoutMs ?? undefined,
      async renew() {
        return (await job.extendLock(token, leaseMs)) === 1
      },
      async complete() {
        try {
          await job.moveToCompleted(null, token, false)
          return true
        } catch (error) {
          if (isLockError(error)) return false
          throw error
        }
      },
      async retry(delayMs, error) {
        await job.moveToFailed(new RetryError(error, delayMs), token, false)
      },
      async fail(error) {
        const final = new Error(error.message)
        // BullMQ fails an UnrecoverableError for good, whatever attempts are left.
        final.name = 'UnrecoverableError'
        final.stack = error.stack
        await job.moveToFailed(final, token, false)
      },
    }
  }

  async function knownQueues(): Promise<string[]> {
    return (await sayingWhy(client.smembers(queuesKey))).sort()
  }

  function splitId(id: string): { queue: string; jobId: string } | undefined {
    const colon = id.lastIndexOf(':')
    return colon <= 0 ? undefined : { queue: id.slice(0, colon), jobId: id.slice(colon + 1) }
  }

  return {
    name: 'redis',
    async push(job) {
      const data: StoredJob = { payload: job.payload, backoff: job.backoff, timeoutMs: job.timeoutMs ?? null }
      await sayingWhy(client.sadd(queuesKey, job.queue))
      const added = await queueOf(job.queue).add(job.name, data, {
        delay: job.delayMs,
        attempts: job.maxAttempts,
        backoff: { type: 'svc' },
        removeOnComplete: true,
        removeOnFail: false,
      })
      return `${job.queue}:${added.id}`
    },
    async reserve(names, worker) {
      for (const name of names) {
        const token = `${worker}:${crypto.randomUUID()}`
        const job = (await (await workerOf(name)).getNextJob(token, { block: false })) as BullJob | undefined
        if (job) return reservation(name, job, token)
      }
      return undefined
    },
    async counts() {
      const result: QueueCounts[] = []
      for (const name of await knownQueues()) {
        const counts = await queueOf(name).getJobCounts('wait', 'prioritized', 'waiting-children', 'delayed', 'active', 'failed')
        const row = {
          queue: name,
          pending: (counts.wait ?? 0) + (counts.prioritized ?? 0) + (counts['waiting-children'] ?? 0),
          delayed: counts.delayed ?? 0,
          reserved: counts.active ?? 0,
          failed: counts.failed ?? 0,
        }
        // As the database driver: a queue that holds nothing is not listed.
        if (row.pending + row.delayed + row.reserved + row.failed > 0) result.push(row)
      }
      return result
    },
    async failed(filter = {}) {
      const limit = filter.limit ?? Number.POSITIVE_INFINITY
      const names = filter.queue === undefined ? await knownQueues() : [filter.queue]
      const jobs: FailedJob[] = []
      for (const name of names) {
        const failed = (await queueOf(name).getFailed(0, Number.isFinite(limit) ? limit - 1 : -1)) as BullJob[]
        for (const job of failed) {
          if (!job) continue
          const data = job.data as StoredJob
          jobs.push({
            id: `${name}:${job.id}`,
            queue: name,
            name: job.name,
            payload: data.payload,
            attempts: job.attemptsStarted,
            error: job.failedReason ?? '',
            stack: job.stacktrace?.at(-1) ?? undefined,
            failedAt: new Date(job.finishedOn ?? job.timestamp).toISOString(),
          })
        }
      }
      return jobs.sort((a, b) => b.failedAt.localeCompare(a.failedAt)).slice(0, limit)
    },
    async retryFailed(ids) {
      const targets: Array<{ queue: string; jobId: string }> = []
      if (ids === 'all') {
        for (const name of await knownQueues()) {
          for (const job of (await queueOf(name).getFailed(0, -1)) as BullJob[]) if (job?.id !== undefined) targets.push({ queue: name, jobId: job.id })
        }
      } else {
        for (const id of ids) {
          const parts = splitId(id)
          if (parts !== undefined) targets.push(parts)
        }
      }
      let retried = 0
      for (const { queue, jobId } of targets) {
        const job = (await queueOf(queue).getJob(jobId)) as BullJob | undefined
        if (!job || !(await job.isFailed())) continue
        await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true })
        retried++
      }
      return retried
    },
    async flushFailed(queue) {
      let flushed = 0
      for (const name of queue === undefined ? await knownQueues() : [queue]) flushed += (await queueOf(name).clean(0, 0, 'failed')).length
      return flushed
    },
    async close() {
      await Promise.all([...workers.values()].map((worker) => worker.close(true)))
      await Promise.all([...queues.values()].map((queue) => queue.close()))
      await Promise.all([client, workerClient].map((connection) => (connection.status === 'wait' ? connection.disconnect() : connection.quit().catch(() => {}))))
    },
  }
}

function isLockError(error: unknown): boolean {
  return error instanceof Error && /lock/i.test(error.message)
}
