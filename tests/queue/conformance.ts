/**
 * One suite for every queue driver (sync, database, redis): what a job
 * dispatched through `createQueue(driver)` goes through, seen from the app
 * and the worker. A case a driver cannot have (sync stores nothing, so it has
 * no delay, lease or priority) is left out by its `stores` flag, never
 * weakened for it.
 */
import { describe, expect, it } from 'vitest'
import {
  createQueue,
  defineJob,
  jobRegistry,
  PermanentJobError,
  runWorker,
  type JobDefinition,
  type JobRunResult,
  type QueueDriver,
  type WorkerOptions,
} from '../../framework/queue/index.ts'

export interface DriverHarness {
  /** A fresh, empty driver; `leaseMs` is the lease it must use. */
  open(options: { leaseMs: number }): Promise<QueueDriver>
  /** Jobs wait in the driver until a worker takes them (false for sync: dispatch runs them). */
  stores: boolean
}

const NO_WAIT = { base: 0, jitter: false }

function recorder() {
  const runs: Array<{ payload: unknown; attempt: number; id: string }> = []
  const job = defineJob('record', {
    async handle(payload: { n: number; at?: string }, { job }) {
      runs.push({ payload, attempt: job.attempt, id: job.id })
    },
  })
  return { runs, job }
}

function failing(name: string, times: number, attempts = 3) {
  const runs: number[] = []
  const job = defineJob(name, {
    attempts,
    backoff: NO_WAIT,
    async handle(_payload: null, { job }) {
      runs.push(job.attempt)
      if (runs.length <= times) throw new Error(`boom ${runs.length}`)
    },
  })
  return { runs, job }
}

export function queueConformance(name: string, harness: DriverHarness): void {
  const leaseMs = 1500

  async function setup() {
    const driver = await harness.open({ leaseMs })
    const queue = createQueue(driver)
    return { driver, queue }
  }

  function work(driver: QueueDriver, jobs: JobDefinition<never>[], options: Partial<WorkerOptions> = {}) {
    const results: JobRunResult[] = []
    const summary = runWorker({
      driver,
      jobs: jobRegistry(jobs),
      queues: ['default'],
      services: {},
      leaseMs,
      timeoutMs: 1000,
      stopWhenEmpty: true,
      idleMs: 20,
      onEvent: (event) => {
        if (event.type === 'finished') results.push(event.result)
      },
      ...options,
    })
    return summary.then((done) => ({ ...done, results }))
  }

  describe(`queue driver conformance: ${name}`, () => {
    it('runs a dispatched job once, with its payload as JSON', async () => {
      const { driver, queue } = await setup()
      try {
        const { runs, job } = recorder()
        const at = new Date('2026-01-02T03:04:05.000Z')
        const dispatched = await queue.dispatch(job, { n: 1, at: at as unknown as string })
        expect(dispatched).toMatchObject({ name: 'record', queue: 'default' })
        expect(typeof dispatched.id).toBe('string')
        const summary = await work(driver, [job as JobDefinition<never>])
        expect(runs).toEqual([{ payload: { n: 1, at: '2026-01-02T03:04:05.000Z' }, attempt: 1, id: dispatched.id }])
        expect(summary.reason).toBe('empty')
        expect(await driver.counts()).toEqual([])
      } finally {
        await driver.close()
      }
    })

    it('refuses a payload that JSON cannot hold, at dispatch', async () => {
      const { driver, queue } = await setup()
      try {
        const { job } = recorder()
        const cyclic: Record<string, unknown> = {}
        cyclic.self = cyclic
        await expect(queue.dispatch(job, cyclic as never)).rejects.toThrow(/cannot be stored as JSON/)
        await expect(queue.dispatch(job, { n: 1 }, { queue: 'bad name!' })).rejects.toThrow(/Queue name/)
        expect(await driver.counts()).toEqual([])
      } finally {
        await driver.close()
      }
    })

    it('retries a failing job up to its attempts, then keeps it as failed with its error and stack', async () => {
      const { driver, queue } = await setup()
      try {
        const { runs, job } = failing('always-fails', 99, 3)
        const dispatched = await queue.dispatch(job, null)
        await work(driver, [job as JobDefinition<never>])
        expect(runs).toEqual([1, 2, 3])
        const failed = await driver.failed()
        expect(failed).toHaveLength(1)
        expect(failed[0]).toMatchObject({ queue: 'default', name: 'always-fails', payload: null, attempts: 3, error: 'boom 3' })
        expect(failed[0]!.stack).toContain('boom 3')
        expect(failed[0]!.stack).toMatch(/conformance\.ts/)
        expect(Date.parse(failed[0]!.failedAt)).not.toBeNaN()
        expect(await driver.counts()).toEqual([{ queue: 'default', pending: 0, delayed: 0, reserved: 0, failed: 1 }])
        if (harness.stores) expect(failed[0]!.id).not.toBe('')
        expect(dispatched.id).toBeTruthy()
      } finally {
        await driver.close()
      }
    })

    it('succeeds on a retry: the job ran twice and is not failed', async () => {
      const { driver, queue } = await setup()
      try {
        const { runs, job } = failing('fails-once', 1, 3)
        await queue.dispatch(job, null)
        await work(driver, [job as JobDefinition<never>])
        expect(runs).toEqual([1, 2])
        expect(await driver.failed()).toEqual([])
      } finally {
        await driver.close()
      }
    })

    it('fails a PermanentJobError at once, attempts left or not', async () => {
      const { driver, queue } = await setup()
      try {
        let runs = 0
        const job = defineJob('bad-payload', {
          attempts: 5,
          handle() {
            runs++
            throw new PermanentJobError('this payload can never work')
          },
        })
        await queue.dispatch(job, null)
        await work(driver, [job as JobDefinition<never>])
        expect(runs).toBe(1)
        expect((await driver.failed())[0]).toMatchObject({ attempts: 1, error: 'PermanentJobError: this payload can never work' })
      } finally {
        await driver.close()
      }
    })

    it('queue:retry puts a failed job back with fresh attempts, and it runs', async () => {
      const { driver, queue } = await setup()
      try {
        const { runs, job } = failing('fails-twice', 2, 2)
        await queue.dispatch(job, null)
        await work(driver, [job as JobDefinition<never>])
        const [failed] = await driver.failed()
        expect(failed).toBeDefined()
        expect(await driver.retryFailed(['no-such-id'])).toBe(0)
        expect(await driver.retryFailed([failed!.id])).toBe(1)
        await work(driver, [job as JobDefinition<never>])
        expect(runs).toEqual([1, 2, 1])
        expect(await driver.failed()).toEqual([])
        expect(await driver.counts()).toEqual([])
      } finally {
        await driver.close()
      }
    })

    it('queue:flush clears the failed jobs of one queue, or all', async () => {
      const { driver, queue } = await setup()
      try {
        const { job } = failing('fails-for-good', 99, 1)
        await queue.dispatch(job, null, { queue: 'mail' })
        await queue.dispatch(job, null, { queue: 'mail' })
        await queue.dispatch(job, null, { queue: 'reports' })
        await work(driver, [job as JobDefinition<never>], { queues: ['mail', 'reports'] })
        expect((await driver.failed()).map((failed) => failed.queue).sort()).toEqual(['mail', 'mail', 'reports'])
        expect(await driver.failed({ queue: 'mail', limit: 1 })).toHaveLength(1)
        expect(await driver.flushFailed('mail')).toBe(2)
        expect((await driver.failed()).map((failed) => failed.queue)).toEqual(['reports'])
        expect(await driver.flushFailed()).toBe(1)
        expect(await driver.failed()).toEqual([])
      } finally {
        await driver.close()
      }
    })

    it('fails a job whose name no worker knows, saying so', async () => {
      const { driver, queue } = await setup()
      try {
        const { job } = recorder()
        await queue.dispatch(job, { n: 1 })
        if (!harness.stores) return // the sync driver runs the definition it is given
        await work(driver, [])
        expect((await driver.failed())[0]!.error).toMatch(/No job named "record" is known to this worker/)
      } finally {
        await driver.close()
      }
    })

    it('aborts a run past its timeout, counts it as a failed attempt, and the worker stops', async () => {
      const { driver, queue } = await setup()
      try {
        let sawAbort = false
        const job = defineJob('slow', {
          attempts: 1,
          timeout: 100,
          handle: (_payload: null, { signal }) =>
            new Promise<void>((resolve) => {
              signal.addEventListener('abort', () => {
                sawAbort = true
                resolve()
              })
            }),
        })
        await queue.dispatch(job, null)
        const summary = await work(driver, [job as JobDefinition<never>])
        expect(sawAbort).toBe(true)
        expect((await driver.failed())[0]!.error).toMatch(/JobTimeoutError: The job ran longer than its timeout of 100 ms/)
        if (harness.stores) expect(summary.reason).toBe('timeout')
      } finally {
        await driver.close()
      }
    })

    if (!harness.stores) return

    it('takes the queues in priority order', async () => {
      const { driver, queue } = await setup()
      try {
        const { runs, job } = recorder()
        await queue.dispatch(job, { n: 1 }, { queue: 'low' })
        await queue.dispatch(job, { n: 2 }, { queue: 'high' })
        await queue.dispatch(job, { n: 3 }, { queue: 'low' })
        await queue.dispatch(job, { n: 4 }, { queue: 'high' })
        await work(driver, [job as JobDefinition<never>], { queues: ['high', 'low'] })
        expect(runs.map((run) => (run.payload as { n: number }).n)).toEqual([2, 4, 1, 3])
      } finally {
        await driver.close()
      }
    })

    it('keeps a delayed job until its time, and counts it as delayed', async () => {
      const { driver, queue } = await setup()
      try {
        const { runs, job } = recorder()
        await queue.dispatch(job, { n: 1 }, { delay: 60_000 })
        await queue.dispatch(job, { n: 2 })
        const summary = await work(driver, [job as JobDefinition<never>])
        expect(summary.processed).toBe(1)
        expect(runs.map((run) => (run.payload as { n: number }).n)).toEqual([2])
        expect(await driver.counts()).toEqual([{ queue: 'default', pending: 0, delayed: 1, reserved: 0, failed: 0 }])
      } finally {
        await driver.close()
      }
    })

    it('waits out the backoff before a retry (the retry counts as delayed)', async () => {
      const { driver, queue } = await setup()
      try {
        const job = defineJob('backs-off', {
          attempts: 2,
          backoff: { base: 60_000, jitter: false },
          handle() {
            throw new Error('not yet')
          },
        })
        await queue.dispatch(job, null)
        const summary = await work(driver, [job as JobDefinition<never>])
        expect(summary.results[0]).toMatchObject({ outcome: 'retry', retryInMs: 60_000 })
        expect(await driver.counts()).toEqual([{ queue: 'default', pending: 0, delayed: 1, reserved: 0, failed: 0 }])
      } finally {
        await driver.close()
      }
    })

    it('hands a job whose worker died to another worker once the lease has run out, as its next attempt', async () => {
      const { driver, queue } = await setup()
      try {
        const { job } = recorder()
        await queue.dispatch(job, { n: 7 })
        const first = await driver.reserve(['default'], 'worker-a')
        expect(first).toMatchObject({ attempt: 1, payload: { n: 7 } })
        // worker-a "dies": it never completes the job.
        expect(await driver.reserve(['default'], 'worker-b')).toBeUndefined()
        expect((await driver.counts())[0]).toMatchObject({ reserved: 1, pending: 0 })
        const second = await eventually(() => driver.reserve(['default'], 'worker-b'), leaseMs * 6)
        expect(second).toMatchObject({ id: first!.id, attempt: 2, payload: { n: 7 } })
        // The dead worker's late answer changes nothing: the job is worker-b's.
        expect(await first!.complete()).toBe(false)
        expect(await first!.renew()).toBe(false)
        expect(await second!.complete()).toBe(true)
        expect(await driver.counts()).toEqual([])
      } finally {
        await driver.close()
      }
    })

    it('a renewed lease keeps the job from other workers', async () => {
      const { driver, queue } = await setup()
      try {
        const { job } = recorder()
        await queue.dispatch(job, { n: 1 })
        const held = await driver.reserve(['default'], 'worker-a')
        const until = Date.now() + leaseMs * 2
        while (Date.now() < until) {
          expect(await held!.renew()).toBe(true)
          expect(await driver.reserve(['default'], 'worker-b')).toBeUndefined()
          await new Promise((resolve) => setTimeout(resolve, leaseMs / 4))
        }
        expect(await held!.complete()).toBe(true)
      } finally {
        await driver.close()
      }
    })

    it('a job running longer than the lease renews it and runs once', async () => {
      const { driver, queue } = await setup()
      try {
        let runs = 0
        const job = defineJob('long', {
          timeout: leaseMs * 3,
          async handle() {
            runs++
            await new Promise((resolve) => setTimeout(resolve, leaseMs * 2))
          },
        })
        await queue.dispatch(job, null)
        const [one, two] = await Promise.all([
          work(driver, [job as JobDefinition<never>]),
          // A second worker that keeps looking while the first runs the job.
          (async () => {
            await new Promise((resolve) => setTimeout(resolve, 50))
            const until = Date.now() + leaseMs * 2
            let stolen = 0
            while (Date.now() < until) {
              if ((await driver.reserve(['default'], 'thief')) !== undefined) stolen++
              await new Promise((resolve) => setTimeout(resolve, 100))
            }
            return stolen
          })(),
        ])
        expect(one.results[0]).toMatchObject({ outcome: 'done' })
        expect(two).toBe(0)
        expect(runs).toBe(1)
      } finally {
        await driver.close()
      }
    })
  })
}

async function eventually<T>(probe: () => Promise<T | undefined>, withinMs: number): Promise<T | undefined> {
  const deadline = Date.now() + withinMs
  for (;;) {
    const value = await probe()
    if (value !== undefined || Date.now() > deadline) return value
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
