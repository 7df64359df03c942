/**
 * The queue under real processes (the built `svc`, spawned): two
 * `queue:work --workers=2` processes (four workers) on 2,000 jobs run every
 * job exactly once; a worker killed by its PID in the middle of a job is
 * restarted by its parent, and its job runs again once the lease is over;
 * SIGTERM lets the current job finish. The same on the database driver and
 * on Redis. Processes are few, bounded in time, and only those started here
 * are killed.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createQueue, databaseQueueDriver, defineJob, type Database, type Queue } from '../../framework/index.ts'
import { openDatabase, openQueueDriver } from '../../framework/node/index.ts'
import { resolveQueueSettings, resolveConfig } from '../../framework/index.ts'
import { startSvc, type AppCopy } from '../helpers/cli.ts'
import { startRedis, type RunningRedis } from '../helpers/redis.ts'
import { queueApp } from './fixture.ts'

const record = defineJob('record', { attempts: 3, backoff: { base: 0 }, handle() {} })
const JOBS = 2000
const LEASE_SECONDS = 3

interface Run {
  job_key: string
  pid: number
  attempt: number
  started_at: number
  finished_at: number | null
}

interface Worker {
  child: ChildProcessWithoutNullStreams
  output: () => string
  exited: Promise<number | null>
}

let redis: RunningRedis
const started: Worker[] = []

beforeAll(async () => {
  redis = await startRedis()
})

afterAll(async () => {
  for (const worker of started) if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill('SIGKILL')
  await redis?.stop()
})

function work(app: AppCopy, args: string[], env: Record<string, string>): Worker {
  const child = startSvc(['queue:work', ...args], { cwd: app.dir, env })
  let output = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const worker = { child, output: () => output, exited }
  started.push(worker)
  return worker
}

async function until<T>(what: string, probe: () => Promise<T | undefined | false>, withinMs: number, show: () => string = () => ''): Promise<T> {
  const deadline = Date.now() + withinMs
  for (;;) {
    const value = await probe()
    if (value !== undefined && value !== false) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${show()}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

function exitWithin(worker: Worker, ms: number): Promise<number | null> {
  return Promise.race([
    worker.exited,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`svc queue:work did not exit within ${ms} ms\n${worker.output()}`)), ms)),
  ])
}

function suite(connection: 'database' | 'redis') {
  describe(`queue:work on ${connection}`, () => {
    let app: AppCopy
    let db: Database
    let queue: Queue
    let env: Record<string, string>

    beforeAll(async () => {
      env = connection === 'redis' ? { QUEUE_CONNECTION: 'redis', REDIS_URL: redis.url, QUEUE_PREFIX: `race${Date.now()}` } : {}
      app = await queueApp(env)
      db = await openDatabase({ storageDir: app.path('storage'), projectDir: app.dir })
      const driver =
        connection === 'redis' ? await openQueueDriver(resolveQueueSettings(resolveConfig(env)), undefined) : databaseQueueDriver(db)
      queue = createQueue(driver)
    })

    afterAll(async () => {
      await queue?.driver.close()
      db?.close()
      app?.remove()
    })

    const runs = () => db.all<Run>('select job_key, pid, attempt, started_at, finished_at from runs order by id')

    it(`two processes of two workers run each of ${JOBS} jobs exactly once`, async () => {
      if (connection === 'database') {
        // One transaction for the 2,000 inserts (a dispatch through the tx handle).
        await db.transaction(async (tx) => {
          const inTx = createQueue(databaseQueueDriver(tx))
          for (let i = 0; i < JOBS; i++) await inTx.dispatch(record, { key: `job-${i}` })
        })
      } else {
        for (let i = 0; i < JOBS; i++) await queue.dispatch(record, { key: `job-${i}` })
      }
      const workers = [0, 1].map(() => work(app, ['--workers', '2', '--stop-when-empty'], env))
      const codes = await Promise.all(workers.map((worker) => exitWithin(worker, 170_000)))
      expect(codes, workers.map((worker) => worker.output()).join('\n---\n')).toEqual([0, 0])

      const all = await runs()
      const perKey = new Map<string, number>()
      for (const run of all) perKey.set(run.job_key, (perKey.get(run.job_key) ?? 0) + 1)
      expect(perKey.size).toBe(JOBS)
      expect([...perKey.values()].filter((count) => count !== 1)).toEqual([])
      expect(all.every((run) => run.finished_at !== null && run.attempt === 1)).toBe(true)
      // Four worker processes took part (two per parent).
      const pids = new Set(all.map((run) => run.pid))
      expect(pids.size).toBe(4)
      for (const worker of workers) expect(worker.output()).toMatch(/worker 1 started \(pid \d+\)[\s\S]*worker 2 started \(pid \d+\)/)
      expect(await queue.driver.counts()).toEqual([])
      expect(await queue.driver.failed()).toEqual([])
    }, 200_000)

    it('a worker killed mid-job is restarted, and its job runs again after the lease; SIGTERM finishes the current job', async () => {
      await db.execute('delete from runs')
      const leaseEnv = { ...env, QUEUE_RETRY_AFTER: String(LEASE_SECONDS) }
      for (let i = 0; i < 4; i++) await queue.dispatch(record, { key: `slow-${i}`, sleepMs: 1200 })
      const parent = work(app, ['--workers', '2', '--timeout', '2'], leaseEnv)

      const victim = await until('a job to start', async () => (await runs()).find((run) => run.finished_at === null), 60_000, parent.output)
      const killedAt = Date.now()
      process.kill(victim.pid, 'SIGKILL')
      await until('the parent to restart the killed worker', async () => new RegExp(`\\(pid ${victim.pid}\\) was killed \\(SIGKILL\\); restarting`).test(parent.output()), 30_000, parent.output)

      const rerun = await until(
        `the killed job ${victim.job_key} to run again`,
        async () => (await runs()).find((run) => run.job_key === victim.job_key && run.attempt === 2 && run.finished_at !== null),
        60_000,
        parent.output,
      )
      expect(rerun.pid).not.toBe(victim.pid)
      // Not before the lease of the killed run was over (renewed until the kill, then left to run out).
      expect(rerun.started_at - killedAt).toBeGreaterThanOrEqual(LEASE_SECONDS * 1000 - 500)
      await until('every slow job to finish', async () => (await runs()).filter((run) => run.finished_at !== null).length === 4, 60_000, parent.output)
      const finished = (await runs()).filter((run) => run.finished_at !== null).map((run) => run.job_key)
      expect(finished.sort()).toEqual(['slow-0', 'slow-1', 'slow-2', 'slow-3'])

      // SIGTERM while a job runs: it finishes, nothing is left reserved, and the workers are not restarted.
      await queue.dispatch(record, { key: 'last', sleepMs: 1500 })
      await until('the last job to start', async () => (await runs()).some((run) => run.job_key === 'last'), 30_000, parent.output)
      parent.child.kill('SIGTERM')
      expect(await exitWithin(parent, 30_000)).toBe(0)
      expect((await runs()).filter((run) => run.job_key === 'last')).toEqual([expect.objectContaining({ attempt: 1, finished_at: expect.any(Number) })])
      expect(await queue.driver.counts()).toEqual([])
      expect(parent.output()).toContain('stopping: every worker finishes its current job...')
      expect(parent.output()).not.toMatch(/stopped \(stopped\); restarting/)
    }, 200_000)
  })
}

suite('database')
suite('redis')
