/**
 * queue:work, queue:status, queue:flush, queue:retry and make:queue-table,
 * in-process on a copy of the blog app with the database driver (the worker
 * processes, the race and the crash are in race.test.ts).
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createQueue, databaseQueueDriver, defineJob, type Database } from '../../framework/index.ts'
import { openDatabase } from '../../framework/node/index.ts'
import { copyExampleApp, type AppCopy } from '../helpers/cli.ts'
import { runSvc, svcJson } from '../helpers/run-svc.ts'
import { DAEMON_PID_FILE_ENV } from '../../cli/queue/daemon.ts'
import { queueApp } from './fixture.ts'

let app: AppCopy
let db: Database

/** The fixture's job, as a dispatcher knows it (the worker loads app/jobs/record.ts). */
const record = defineJob('record', { attempts: 3, backoff: { base: 0 }, handle() {} })

async function dispatch(payload: { key: string; fail?: 'always' | 'once' | 'permanent'; sleepMs?: number }, options: { queue?: string; delay?: number } = {}) {
  return createQueue(databaseQueueDriver(db)).dispatch(record, payload, options)
}

async function runs(): Promise<Array<{ job_key: string; attempt: number; finished_at: number | null }>> {
  return db.all('select job_key, attempt, finished_at from runs order by id')
}

beforeAll(async () => {
  app = await queueApp()
  db = await openDatabase({ storageDir: app.path('storage'), projectDir: app.dir })
})

afterAll(() => {
  db?.close()
  app?.remove()
})

beforeEach(async () => {
  await db.batch(['delete from jobs', 'delete from failed_jobs', 'delete from runs'])
})

describe('queue:status', () => {
  it('reports an empty queue', async () => {
    const status = await svcJson(['queue:status'], { cwd: app.dir })
    expect(status).toEqual({ connection: 'database', queues: [], totals: { pending: 0, delayed: 0, reserved: 0, failed: 0 }, failed_jobs: [], daemon: null })
    const human = await runSvc(['queue:status'], { cwd: app.dir })
    expect(human.stdout).toMatch(/^Queue \(database\)\nNo jobs\.\n$/)
  })

  it('counts pending and delayed jobs per queue', async () => {
    await dispatch({ key: 'a' })
    await dispatch({ key: 'b' }, { queue: 'mail' })
    await dispatch({ key: 'c' }, { queue: 'mail', delay: 3_600_000 })
    const status = await svcJson(['queue:status'], { cwd: app.dir })
    expect(status.queues).toEqual([
      { queue: 'default', pending: 1, delayed: 0, reserved: 0, failed: 0 },
      { queue: 'mail', pending: 1, delayed: 1, reserved: 0, failed: 0 },
    ])
    expect(status.totals).toEqual({ pending: 2, delayed: 1, reserved: 0, failed: 0 })
    expect((await svcJson(['queue:status', '--queue', 'mail'], { cwd: app.dir })).queues).toHaveLength(1)
    const human = await runSvc(['queue:status'], { cwd: app.dir })
    expect(human.stdout).toContain('QUEUE    PENDING  DELAYED  RESERVED  FAILED\ndefault  1        0        0         0\nmail     1        1        0         0')
  })
})

describe('queue:work', () => {
  it('runs the due jobs in priority order and stops when none is due, saying how many still wait', async () => {
    await dispatch({ key: 'low-1' }, { queue: 'low' })
    await dispatch({ key: 'high-1' }, { queue: 'high' })
    await dispatch({ key: 'default-1' })
    await dispatch({ key: 'later' }, { delay: 3_600_000 })
    const result = await runSvc(['queue:work', '--queue', 'high,default,low', '--stop-when-empty'], { cwd: app.dir })
    expect(result.stderr).toContain('Processing high, default, low (database queue); Ctrl-C stops after the current job.')
    expect(result.exitCode).toBe(0)
    expect((await runs()).map((run) => run.job_key)).toEqual(['high-1', 'default-1', 'low-1'])
    expect(result.stdout).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d record #\d+ \(high attempt 1\/3\) DONE \d+ ms$/m)
    expect(result.stderr).toContain(
      "Ran 3 job(s), 0 failed for good; stopped: no job is due, but 1 delayed job(s) wait for their time (a dispatch delay or a retry's backoff): " +
        'run svc queue:work again later, or without --stop-when-empty.',
    )
    expect((await svcJson(['queue:status'], { cwd: app.dir })).totals).toMatchObject({ pending: 0, delayed: 1 })
    // A delayed job of a queue the worker does not take is not counted; with none left, the queue is empty.
    const other = await runSvc(['queue:work', '--queue', 'high', '--stop-when-empty'], { cwd: app.dir })
    expect(other.stderr).toContain('Ran 0 job(s), 0 failed for good; stopped: the queue is empty.')
  })

  it('--workers with --stop-when-empty says the delayed jobs left too, as one worker does', async () => {
    // It said only "Ran 1 job(s), 0 failed for good; 0 worker restart(s).", as if the queue were done.
    await dispatch({ key: 'now' })
    await dispatch({ key: 'later' }, { delay: 3_600_000 })
    const result = await runSvc(['queue:work', '--workers', '2', '--stop-when-empty'], { cwd: app.dir })
    expect(result.exitCode).toBe(0)
    expect(result.stderr).toContain(
      "Ran 1 job(s), 0 failed for good; 0 worker restart(s); stopped: no job is due, but 1 delayed job(s) wait for their time (a dispatch delay or a retry's backoff): " +
        'run svc queue:work again later, or without --stop-when-empty.',
    )
    await db.execute('delete from jobs')
    const empty = await runSvc(['queue:work', '--workers', '2', '--stop-when-empty'], { cwd: app.dir })
    expect(empty.stderr).toContain('Ran 0 job(s), 0 failed for good; 0 worker restart(s).\n')
  })

  it('a job file that does not load is E_APP_LOAD with the fix: the package to install', async () => {
    app.write('app/jobs/zz_package.ts', "import { pad } from 'no-such-pad-package'\nexport const padded = pad\n")
    try {
      const result = await runSvc(['queue:work', '--stop-when-empty'], { cwd: app.dir })
      expect(result.exitCode).toBe(1)
      expect(result.stderr).toContain('error [E_APP_LOAD]: Cannot load the job file ')
      expect(result.stderr).toContain('  fix: the package no-such-pad-package is not installed: npm install no-such-pad-package (or fix the import if the name is wrong)\n')
    } finally {
      rmSync(app.path('app/jobs/zz_package.ts'))
    }
  })

  it('prints the control characters of an error message escaped (a NUL, an escape sequence, a line break); --json keeps them exact', async () => {
    // The FAIL line used to carry them raw: a NUL cut the line for grep and log viewers, ESC [2J cleared the terminal.
    const message = 'odd\u0000text\u001b[2J\nnext\u202e'
    app.write('app/jobs/odd.ts', `import { defineJob } from 'svc'\nexport const odd = defineJob('odd', { attempts: 1, handle() { throw new Error(${JSON.stringify(message)}) } })\n`)
    try {
      await createQueue(databaseQueueDriver(db)).dispatch(defineJob('odd', { attempts: 1, handle() {} }), {})
      const result = await runSvc(['queue:work', '--stop-when-empty'], { cwd: app.dir })
      const escaped = 'odd\\u0000text\\u001b[2J\\nnext\\u202e'
      expect(result.stdout).toMatch(/odd #\d+ \(default\) FAIL \d+ ms: /)
      expect(result.stdout).toContain(`: ${escaped}\n`)
      expect(result.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f\u202e]/)
      const human = await runSvc(['queue:status'], { cwd: app.dir })
      // Its first line, as the table shows an error.
      expect(human.stdout).toContain('odd\\u0000text\\u001b[2J\n')
      expect(human.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f\u202e]/)
      // The stored error as it is (a NUL is stored as the six characters \u0000: docs/queues.md).
      const status = await svcJson(['queue:status'], { cwd: app.dir })
      expect(status.failed_jobs[0]).toMatchObject({ name: 'odd', error: 'odd\\u0000text\u001b[2J\nnext\u202e' })
    } finally {
      rmSync(app.path('app/jobs/odd.ts'))
    }
  })

  it('retries, then keeps the failed job with its error and stack; queue:retry runs it again', async () => {
    await dispatch({ key: 'flaky', fail: 'once' })
    await dispatch({ key: 'broken', fail: 'always' })
    await dispatch({ key: 'hopeless', fail: 'permanent' })
    const result = await runSvc(['queue:work', '--stop-when-empty'], { cwd: app.dir })
    expect(result.stdout).toMatch(/record #\d+ \(default attempt 1\/3\) RETRY \d+ ms: failed flaky on attempt 1, next run in 0 ms/)
    expect(result.stdout).toMatch(/record #\d+ \(default attempt 3\/3\) FAIL \d+ ms: failed broken on attempt 3/)
    expect(result.stdout).toMatch(/FAIL \d+ ms: PermanentJobError: never works/)
    expect(result.stderr).toContain('failed for good')
    const byKey = (key: string) => runs().then((all) => all.filter((run) => run.job_key === key).map((run) => run.attempt))
    expect(await byKey('flaky')).toEqual([1, 2])
    expect(await byKey('broken')).toEqual([1, 2, 3])
    expect(await byKey('hopeless')).toEqual([1])

    const status = await svcJson(['queue:status'], { cwd: app.dir })
    expect(status.totals.failed).toBe(2)
    const broken = status.failed_jobs.find((job: { payload: { key: string } }) => job.payload.key === 'broken')
    expect(broken).toMatchObject({ queue: 'default', name: 'record', attempts: 3, error: 'failed broken on attempt 3' })
    expect(broken.stack).toMatch(/^Error: failed broken on attempt 3\n\s+at /)
    expect(broken.stack).toContain('record.ts')
    const human = await runSvc(['queue:status'], { cwd: app.dir })
    expect(human.stdout).toMatch(/Failed jobs \(newest first\)\nID +QUEUE +JOB +ATTEMPTS +FAILED AT +ERROR\n/)
    // Laravel's name for the list runs the same command.
    expect(await svcJson(['queue:failed'], { cwd: app.dir })).toEqual(status)

    const retried = await svcJson(['queue:retry', broken.id], { cwd: app.dir })
    expect(retried).toEqual({ connection: 'database', requested: [broken.id], retried: 1, missing: [] })
    await runSvc(['queue:work', '--stop-when-empty'], { cwd: app.dir })
    expect(await byKey('broken')).toEqual([1, 2, 3, 1, 2, 3])

    const all = await svcJson(['queue:retry', 'all'], { cwd: app.dir })
    expect(all).toEqual({ connection: 'database', requested: 'all', retried: 2, missing: [] })
    expect((await svcJson(['queue:status'], { cwd: app.dir })).totals).toEqual({ pending: 2, delayed: 0, reserved: 0, failed: 0 })
  })

  it('queue:retry says when an id names no failed job; queue:flush deletes failed jobs of one queue or all', async () => {
    await dispatch({ key: 'x', fail: 'permanent' }, { queue: 'a' })
    await dispatch({ key: 'y', fail: 'permanent' }, { queue: 'b' })
    await runSvc(['queue:work', '--queue', 'a,b', '--stop-when-empty'], { cwd: app.dir })
    // None of the ids names a failed job: an error, exit 1, nothing retried.
    for (const ids of ['999999', '999998,999999']) {
      const missing = await runSvc(['queue:retry', ids], { cwd: app.dir })
      expect(missing.exitCode, ids).toBe(1)
      expect(missing.stdout).toBe('')
      expect(missing.stderr).toMatch(new RegExp(`^error \\[E_NO_FAILED_JOB\\]: No failed job has (the id|any of the ids) ${ids.replace(',', ', ')}\n  fix: svc queue:status`))
    }
    // Not an id at all: E_BAD_ARGUMENTS, nothing retried.
    for (const ids of ['abc', '12,abc', '-1', '1.5', '0']) {
      const bad = await runSvc(['queue:retry', '--', ids], { cwd: app.dir })
      expect(bad.exitCode, ids).toBe(1)
      expect(bad.stderr, ids).toContain("error [E_BAD_ARGUMENTS]: Not a job id: ")
      expect(bad.stderr, ids).toContain("(a database queue's ids are whole numbers from 1)")
    }
    expect((await runSvc(['queue:retry', ' , '], { cwd: app.dir })).stderr).toContain('error [E_BAD_ARGUMENTS]')
    expect((await svcJson(['queue:status'], { cwd: app.dir })).totals.failed).toBe(2)

    // Some exist: those are retried, the others named; exit 0.
    const [failedA] = (await svcJson(['queue:status', '--queue', 'a'], { cwd: app.dir })).failed_jobs
    const partial = await runSvc(['queue:retry', `${failedA.id},999999`], { cwd: app.dir })
    expect(partial.exitCode).toBe(0)
    expect(partial.stdout).toBe('Queued 1 failed job(s) again.\n')
    expect(partial.stderr).toBe('No failed job has the id 999999: not retried (svc queue:status lists them).\n')
    const [failedB] = (await svcJson(['queue:status', '--queue', 'b'], { cwd: app.dir })).failed_jobs
    expect(await svcJson(['queue:retry', `999999,${failedB.id}`, '--json'], { cwd: app.dir })).toEqual({
      connection: 'database',
      requested: ['999999', failedB.id],
      retried: 1,
      missing: ['999999'],
    })
    // Both back in their queues; fail them again for queue:flush below.
    await runSvc(['queue:work', '--queue', 'a,b', '--stop-when-empty'], { cwd: app.dir })
    expect(await svcJson(['queue:flush', '--queue', 'a'], { cwd: app.dir })).toEqual({ connection: 'database', queue: 'a', flushed: 1 })
    expect((await runSvc(['queue:flush'], { cwd: app.dir })).stdout).toBe('Deleted 1 failed job(s).\n')
    expect((await svcJson(['queue:status'], { cwd: app.dir })).failed_jobs).toEqual([])
  })

  it('stops after --max-jobs', async () => {
    for (const key of ['1', '2', '3']) await dispatch({ key })
    const result = await runSvc(['queue:work', '--max-jobs', '2'], { cwd: app.dir })
    expect(result.exitCode).toBe(0)
    expect(result.stderr).toContain('Ran 2 job(s), 0 failed for good; stopped: the --max-jobs limit was reached.')
    expect(await runs()).toHaveLength(2)
  })

  it('stops when asked, after the current job', async () => {
    await dispatch({ key: 'slow', sleepMs: 800 })
    await dispatch({ key: 'next' })
    const controller = new AbortController()
    const running = runSvc(['queue:work'], { cwd: app.dir, signal: controller.signal })
    for (let i = 0; i < 400 && (await runs()).length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 25))
    controller.abort('SIGTERM')
    const result = await running
    expect(result.exitCode).toBe(0)
    expect(result.stderr).toContain('stopped: asked to stop')
    const done = await runs()
    expect(done).toEqual([{ job_key: 'slow', attempt: 1, finished_at: expect.any(Number) }])
    expect((await svcJson(['queue:status'], { cwd: app.dir })).totals.pending).toBe(1)
  })

  it('a job past its timeout counts as a failed attempt and the worker exits non-zero', async () => {
    await dispatch({ key: 'stuck', sleepMs: 60_000 })
    const result = await runSvc(['queue:work', '--timeout', '0.3', '--stop-when-empty'], { cwd: app.dir })
    expect(result.exitCode).toBe(1)
    expect(result.stdout).toMatch(/RETRY \d+ ms: JobTimeoutError: The job ran longer than its timeout of 300 ms/)
    expect(result.stderr).toContain('error [E_JOB_TIMEOUT]')
    expect(result.stderr).toContain('fix: run workers with --workers=N')
  })

  it('shows the outcome in colour on a terminal', async () => {
    await dispatch({ key: 'ok' })
    const result = await runSvc(['queue:work', '--stop-when-empty'], { cwd: app.dir, tty: true, env: { NO_COLOR: '' } })
    expect(result.stdout).toContain('\x1b[32mDONE\x1b[39m')
  })

  it('refuses a timeout that is not shorter than the lease, and a sync queue (queue:work and queue:retry)', async () => {
    const timeout = await runSvc(['queue:work', '--timeout', '90'], { cwd: app.dir })
    expect(timeout.exitCode).toBe(1)
    expect(timeout.stderr).toContain('error [E_QUEUE_TIMEOUT]: The job timeout (90000 ms) must be shorter than the queue\'s lease, retry_after (90000 ms)')
    expect(timeout.stderr).toContain('fix: pass a shorter --timeout, or raise QUEUE_RETRY_AFTER (now 90 s)')
    const longer = await runSvc(['queue:work', '--timeout', '90', '--stop-when-empty'], { cwd: app.dir, env: { QUEUE_RETRY_AFTER: '120' } })
    expect(longer.exitCode).toBe(0)
    const sync = await runSvc(['queue:work'], { cwd: app.dir, env: { QUEUE_CONNECTION: 'sync' } })
    expect(sync.stderr).toContain('error [E_QUEUE_SYNC]')
    // Its failed jobs live in the dispatching process: queue:retry has none to take, whatever the id.
    for (const ids of ['1', 'all', 'a b']) {
      const retry = await runSvc(['queue:retry', ids], { cwd: app.dir, env: { QUEUE_CONNECTION: 'sync' } })
      expect(retry.exitCode, ids).toBe(1)
      expect(retry.stderr, ids).toContain('error [E_QUEUE_SYNC]: QUEUE_CONNECTION=sync keeps no failed jobs for the CLI')
    }
    const typo = await runSvc(['queue:work', '--stop-when-emtpy'], { cwd: app.dir })
    expect(typo.stderr).toContain('did you mean --stop-when-empty?')
    const bad = await runSvc(['queue:status'], { cwd: app.dir, env: { QUEUE_CONNECTION: 'rabbit' } })
    expect(bad.stderr).toContain('QUEUE_CONNECTION')
    expect(bad.exitCode).toBe(1)
  })
})

describe('make:queue-table', () => {
  it('writes the migration once; without it the queue commands say how to get it', async () => {
    const bare = copyExampleApp('blog')
    try {
      // The blog ships the queue tables: this copy does without them.
      rmSync(bare.path('database/migrations/20260101000700_create_jobs_table.ts'))
      bare.write('.env', 'JWT_SECRET=test-secret-that-is-at-least-32-characters-long\n')
      await runSvc(['migrate'], { cwd: bare.dir })
      const missing = await runSvc(['queue:status'], { cwd: bare.dir })
      expect(missing.exitCode).toBe(1)
      expect(missing.stderr).toContain('error [E_QUEUE_TABLE]')
      expect(missing.stderr).toContain("and none creates it: it is one of svc's own tables, whose migration svc make:queue-table writes; run it, then svc migrate")
      expect((await runSvc(['queue:work'], { cwd: bare.dir })).stderr).toContain('error [E_QUEUE_TABLE]')

      const applied = readdirSync(bare.path('database/migrations')).filter((name) => /^\d{14}_/.test(name)).sort()
      const made = await svcJson(['make:queue-table'], { cwd: bare.dir })
      // Dated now (or after the app's latest migration), as make:migration dates them: after every migration already applied.
      expect(made).toEqual({ written: [expect.stringMatching(/^database\/migrations\/\d{14}_create_jobs_table\.ts$/)], skipped: [] })
      const file = made.written[0] as string
      expect(file.split('/').at(-1)! > applied.at(-1)!).toBe(true)
      expect(existsSync(bare.path(file))).toBe(true)
      expect(await svcJson(['make:queue-table'], { cwd: bare.dir })).toEqual({ written: [], skipped: [file] })
      await runSvc(['migrate'], { cwd: bare.dir })
      expect((await svcJson(['queue:status'], { cwd: bare.dir })).queues).toEqual([])
    } finally {
      bare.remove()
    }
  })

  it('on a database never migrated, the fix is what works there: svc migrate when the app has the migration, make:queue-table first when not', async () => {
    // It said "run svc make:queue-table" there too, a migration the blog already has.
    const fresh = copyExampleApp('blog')
    try {
      fresh.write('.env', 'JWT_SECRET=test-secret-that-is-at-least-32-characters-long\n')
      fresh.write('storage/database.sqlite', '') // an empty file is an empty SQLite database
      for (const args of [['queue:status'], ['queue:work', '--stop-when-empty']]) {
        const answer = await runSvc(args, { cwd: fresh.dir })
        expect(answer.exitCode, args.join(' ')).toBe(1)
        expect(answer.stderr).toContain('error [E_QUEUE_TABLE]')
        expect(answer.stderr).toMatch(/fix: 9 migration\(s\) have not run on the database storage\/database\.sqlite \(no migration has run on it.*; run svc migrate \(or svc serve --migrate\)\n/)
        expect(answer.stderr).not.toContain('make:queue-table')
      }
      rmSync(fresh.path('database/migrations/20260101000700_create_jobs_table.ts'))
      const without = await runSvc(['queue:status'], { cwd: fresh.dir })
      expect(without.stderr).toMatch(/fix: 8 migration\(s\) have not run .*, and none in database\/migrations creates jobs, one of svc's own tables: run svc make:queue-table \(which writes its migration\), then svc migrate\n/)
    } finally {
      fresh.remove()
    }
  })
})

describe('queue:work --daemon', () => {
  const pidFile = () => app.path('storage', 'queue-worker.pid')
  const log = () => app.path('storage', 'logs', 'queue.log')
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0)
      return true
    } catch {
      return false
    }
  }
  /** Polls until `done()`: what a daemon does happens in its own time. */
  async function until(done: () => boolean, what: string): Promise<void> {
    for (let i = 0; i < 600 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 100))
    if (!done()) throw new Error(`still waiting for ${what}`)
  }

  it('the daemon removes its pid file when stopped (SIGTERM, SIGINT); a stale file (a pid now another program\'s) does not block the next start', async () => {
    // A pid file left behind whose pid is alive but no queue worker (this test's own process): not a running daemon.
    writeFileSync(pidFile(), `${process.pid}\n`)
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      rmSync(log(), { force: true })
      const started = await runSvc(['queue:work', '--daemon'], { cwd: app.dir })
      expect(started.stderr, signal).not.toContain('error')
      expect(started.exitCode).toBe(0)
      const pid = Number(/pid (\d+)/.exec(started.stdout)![1])
      expect(readFileSync(pidFile(), 'utf8').trim()).toBe(String(pid))
      try {
        await until(() => existsSync(log()) && readFileSync(log(), 'utf8').includes('Processing default'), 'the daemon to start')
        process.kill(pid, signal)
        await until(() => !alive(pid), `the daemon to stop on ${signal}`)
        expect(readFileSync(log(), 'utf8')).toContain('stopped: asked to stop')
        // It used to stay, and only the command that started the daemon (long gone) would have removed it.
        expect(existsSync(pidFile()), signal).toBe(false)
      } finally {
        if (alive(pid)) process.kill(pid, 'SIGKILL')
      }
    }
  })

  it('a daemon failing at start-up removes its pid file too, and leaves a newer daemon\'s alone', async () => {
    const env = { [DAEMON_PID_FILE_ENV]: pidFile() }
    writeFileSync(pidFile(), `${process.pid}\n`)
    // A timeout past the lease: refused before any job is taken (E_QUEUE_TIMEOUT), as the daemon would be.
    const failed = await runSvc(['queue:work', '--timeout', '100000'], { cwd: app.dir, env })
    expect(failed.stderr).toContain('error [E_QUEUE_TIMEOUT]')
    expect(existsSync(pidFile())).toBe(false)
    writeFileSync(pidFile(), '999999999\n')
    await runSvc(['queue:work', '--timeout', '100000'], { cwd: app.dir, env })
    expect(readFileSync(pidFile(), 'utf8')).toBe('999999999\n')
    rmSync(pidFile())
  })
})
