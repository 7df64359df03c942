/**
 * schedule:list and schedule:run on a copy of the blog app with an
 * app/schedule.ts, in-process; and two spawned `svc schedule:run` processes
 * at once (the lock row: one runs the minute, the other skips), then one
 * started while the other's run still goes (skipped: locked).
 */
import { existsSync } from 'node:fs'
import { hostname } from 'node:os'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { renderMigrationFile } from '../../cli/project/migration-file.ts'
import { IDEMPOTENCY_MIGRATION_SOURCE } from '../../framework/idempotency/schema.ts'
import type { Database } from '../../framework/index.ts'
import { openDatabase } from '../../framework/node/index.ts'
import { spawnSvc, type AppCopy } from '../helpers/cli.ts'
import { runSvc, startSvc, svcJson } from '../helpers/run-svc.ts'
import { queueApp } from '../queue/fixture.ts'

const SCHEDULE = `import { dailyAt, defineSchedule, everyMinute } from 'svc'

export default defineSchedule([
  everyMinute(async function stamp({ db, now, config }) {
    const sleep = Number(config?.vars.STAMP_SLEEP_MS ?? 0)
    const row = await db!.first<{ id: number }>('insert into stamps (minute, pid, started_at) values (?, ?, ?) returning id', [now.toISOString(), process.pid, Date.now()])
    if (sleep > 0) await new Promise((resolve) => setTimeout(resolve, sleep))
    await db!.execute('update stamps set finished_at = ? where id = ?', [Date.now(), row!.id])
  }),
  dailyAt('02:00', async function nightly({ config }) {
    if (config?.vars.NIGHTLY_FAILS === 'oddly') throw new Error('the report\\u0000server\\u001b[2J\\nis down')
    if (config?.vars.NIGHTLY_FAILS) throw new Error('the report server is down')
  }, { timezone: 'Europe/Paris', description: 'Nightly report' }),
])
`

const STAMPS = `import type { Database } from 'svc'
export async function up(db: Database) {
  await db.execute('create table stamps (id integer primary key autoincrement, minute text not null, pid integer not null, started_at integer not null, finished_at integer)')
}
export async function down(db: Database) {
  await db.execute('drop table stamps')
}
`

let app: AppCopy
let db: Database

beforeAll(async () => {
  app = await queueApp()
  app.write('app/schedule.ts', SCHEDULE)
  app.write('database/migrations/20990101000100_create_stamps_table.ts', STAMPS)
  app.write(`database/migrations/${IDEMPOTENCY_MIGRATION_SOURCE.name}.ts`, renderMigrationFile(IDEMPOTENCY_MIGRATION_SOURCE, 'make:idempotency-table'))
  expect((await runSvc(['migrate'], { cwd: app.dir })).exitCode).toBe(0)
  db = await openDatabase({ storageDir: app.path('storage'), projectDir: app.dir })
})

afterAll(() => {
  db?.close()
  app?.remove()
})

beforeEach(async () => {
  await db.batch(['delete from stamps', 'drop table if exists schedule_locks'])
})

describe('schedule:list', () => {
  it("lists the app's tasks and svc's own with their next runs", async () => {
    const list = await svcJson(['schedule:list'], { cwd: app.dir })
    expect(list.timezone).toBe('UTC')
    expect(list.tasks.map((task: { name: string }) => task.name)).toEqual(['stamp', 'nightly', 'svc:prune-idempotency-keys', 'svc:prune-refresh-tokens', 'svc:prune-traces'])
    const nightly = list.tasks[1]
    expect(nightly).toMatchObject({ cron: '0 2 * * *', timezone: 'Europe/Paris', description: 'Nightly report', builtin: false, last_run: null })
    // 02:00 in Paris is 00:00 or 01:00 UTC.
    expect(nightly.next_run).toMatch(/T0[01]:00:00\.000Z$/)
    expect(list.tasks[2]).toMatchObject({ cron: '0 * * * *', timezone: 'UTC', builtin: true })
    const human = await runSvc(['schedule:list'], { cwd: app.dir })
    expect(human.stdout).toMatch(/^TASK +CRON +ZONE +NEXT RUN +LAST RUN\nstamp +\* \* \* \* \* +UTC +\d{4}-\d\d-\d\d \d\d:\d\d UTC \(in \d+ min\)/)
    expect(human.stdout).toContain('* * * * * cd /path/to/app && svc schedule:run')
  })

  it('before the database exists: every task without a last run, and no database file made', async () => {
    const url = 'file:storage/not-made-yet.sqlite'
    const list = await svcJson(['schedule:list'], { cwd: app.dir, env: { DATABASE_URL: url } })
    expect(list.tasks.map((task: { last_run: unknown }) => task.last_run)).toEqual([null, null, null, null, null])
    expect(existsSync(app.path('storage', 'not-made-yet.sqlite'))).toBe(false)
  })

  it('shows the last run once a task has run', async () => {
    await runSvc(['schedule:run', '--task', 'stamp'], { cwd: app.dir })
    const stamp = (await svcJson(['schedule:list'], { cwd: app.dir })).tasks[0]
    expect(stamp.last_run).toMatchObject({ status: 'ran', error: null, running: false })
  })
})

describe('schedule:run', () => {
  it('runs the tasks due in the minute, in their time zones', async () => {
    // 01:00 UTC on a January day is 02:00 in Paris: nightly is due, with stamp (every minute) and svc's hourly prune.
    const run = await svcJson(['schedule:run', '--at', '2026-01-15T01:00:30Z'], { cwd: app.dir })
    expect(run.minute).toBe('2026-01-15T01:00:00.000Z')
    expect(run.results.map((result: { task: string; status: string }) => `${result.task} ${result.status}`).sort()).toEqual(['nightly ran', 'stamp ran', 'svc:prune-idempotency-keys ran'])
    expect(await db.all('select minute from stamps')).toEqual([{ minute: '2026-01-15T01:00:00.000Z' }])
    const human = await runSvc(['schedule:run', '--at', '2026-01-15T01:01:00Z'], { cwd: app.dir })
    expect(human.stdout).toMatch(/^ran {5}stamp \(\d+ ms\)\n$/)
  })

  it('exits 1 when a task fails, naming the error', async () => {
    const result = await runSvc(['schedule:run', '--at', '2026-01-15T01:00:00Z'], { cwd: app.dir, env: { NIGHTLY_FAILS: '1' } })
    expect(result.exitCode).toBe(1)
    expect(result.stdout).toMatch(/failed {2}nightly \(\d+ ms\): the report server is down/)
  })

  it("prints a failed task's error with its control characters escaped; --json keeps it exact", async () => {
    // It printed the NUL and the escape sequence raw (ESC [2J clears the terminal).
    const result = await runSvc(['schedule:run', '--task', 'nightly'], { cwd: app.dir, env: { NIGHTLY_FAILS: 'oddly' } })
    expect(result.exitCode).toBe(1)
    expect(result.stdout).toMatch(/^failed {2}nightly \(\d+ ms\): the report\\u0000server\\u001b\[2J\\nis down\n$/)
    const json = await runSvc(['schedule:run', '--task', 'nightly', '--json'], { cwd: app.dir, env: { NIGHTLY_FAILS: 'oddly' } })
    expect(JSON.parse(json.stdout).results[0].error).toBe('the report\u0000server\u001b[2J\nis down')
  })

  it('runs a built-in prune by name: expired idempotency keys go', async () => {
    const now = Date.now()
    await db.execute('delete from idempotency_keys')
    for (const [key, expires] of [['old', now - 1000], ['fresh', now + 3_600_000]] as const) {
      await db.execute(
        "insert into idempotency_keys (scope, method, path, idempotency_key, fingerprint, status, created_at, expires_at) values ('user:1', 'POST', '/api/x', ?, 'f', 'done', ?, ?)",
        [key, now - 5000, expires],
      )
    }
    const run = await svcJson(['schedule:run', '--task', 'svc:prune-idempotency-keys'], { cwd: app.dir })
    expect(run.results).toEqual([{ task: 'svc:prune-idempotency-keys', status: 'ran', reason: null, held_by: null, duration_ms: expect.any(Number), error: null }])
    expect(await db.all('select idempotency_key from idempotency_keys')).toEqual([{ idempotency_key: 'fresh' }])
    expect((await svcJson(['schedule:run', '--task', 'svc:prune-traces'], { cwd: app.dir })).results[0].status).toBe('ran')
    expect((await svcJson(['schedule:run', '--task', 'svc:prune-refresh-tokens'], { cwd: app.dir })).results[0].status).toBe('ran')
  })

  it('says what is wrong: an unknown task, a bad time, a bad zone, a schedule file without defineSchedule', async () => {
    const unknown = await runSvc(['schedule:run', '--task', 'stmap'], { cwd: app.dir })
    expect(unknown.stderr).toContain('error [E_SCHEDULE_TASK]: No scheduled task is named "stmap"')
    expect(unknown.stderr).toContain('stamp, nightly, svc:prune-idempotency-keys')
    expect((await runSvc(['schedule:run', '--at', 'tomorrow'], { cwd: app.dir })).stderr).toContain('error [E_BAD_OPTION]: --at takes an ISO 8601 time')
    expect((await runSvc(['schedule:list'], { cwd: app.dir, env: { SCHEDULE_TIMEZONE: 'Paris' } })).stderr).toContain('SCHEDULE_TIMEZONE: unknown time zone "Paris"')
    app.write('app/schedule.ts', 'export default [1, 2]\n')
    try {
      const bad = await runSvc(['schedule:list'], { cwd: app.dir })
      expect(bad.stderr).toContain('error [E_SCHEDULE]')
      expect(bad.stderr).toContain('must export default defineSchedule([...])')
    } finally {
      app.write('app/schedule.ts', SCHEDULE)
    }
  })

  it('two processes at once run the minute once; one started while a run goes skips it', async () => {
    const at = '2026-02-01T12:00:10Z'
    const both = await Promise.all([0, 1].map(() => spawnSvc(['schedule:run', '--at', at, '--json'], { cwd: app.dir, env: { STAMP_SLEEP_MS: '500' }, timeoutMs: 60_000 })))
    const stamp = both.map((result) => (JSON.parse(result.stdout) as { results: Array<{ task: string; status: string; reason: string | null }> }).results.find((r) => r.task === 'stamp')!)
    expect(stamp.map((result) => `${result.status} ${result.reason}`).sort()).toEqual(['ran null', 'skipped already_ran'])
    expect(await db.all('select minute from stamps')).toEqual([{ minute: '2026-02-01T12:00:00.000Z' }])

    // The 12:01 run takes long; the 12:02 one starts meanwhile (another host, cron's next minute).
    const slow = spawnSvc(['schedule:run', '--at', '2026-02-01T12:01:00Z'], { cwd: app.dir, env: { STAMP_SLEEP_MS: '8000' }, timeoutMs: 60_000 })
    for (let i = 0; i < 600 && (await db.all("select 1 from stamps where minute = '2026-02-01T12:01:00.000Z'")).length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    const next = await svcJson(['schedule:run', '--at', '2026-02-01T12:02:00Z'], { cwd: app.dir })
    expect(next.results).toEqual([{ task: 'stamp', status: 'skipped', reason: 'locked', held_by: expect.stringMatching(new RegExp(`^${hostname()}:\\d+$`)), duration_ms: null, error: null }])
    expect((await slow).stdout).toMatch(/^ran {5}stamp/)
    // Once it has finished, the lock is free for the next minute.
    expect((await svcJson(['schedule:run', '--at', '2026-02-01T12:03:00Z'], { cwd: app.dir })).results[0].status).toBe('ran')
  }, 120_000)
})

describe('schedule:work', () => {
  it('runs the due tasks at once in the foreground, on the same lock rows as schedule:run; stops when asked (then it waits for the next minute)', async () => {
    const work = startSvc(['schedule:work'], { cwd: app.dir })
    const [, minute] = await work.waitFor(/^(\S+) ran {5}stamp \(\d+ ms\)$/, 60_000)
    // Scoped to that minute: the worker's next pass may start meanwhile.
    const stampsOf = () => db.all('select minute from stamps where minute = ?', [minute!])
    expect(await stampsOf()).toEqual([{ minute }])
    // cron's schedule:run on another host, for the same minute: already done.
    const other = await svcJson(['schedule:run', '--at', minute!], { cwd: app.dir })
    expect(other.results.find((result: { task: string }) => result.task === 'stamp')).toEqual({ task: 'stamp', status: 'skipped', reason: 'already_ran', held_by: `${hostname()}:${process.pid}`, duration_ms: null, error: null })
    // Said as where that run is: here, the worker's process (it said "on another host" whichever host it was).
    const human = await runSvc(['schedule:run', '--at', minute!], { cwd: app.dir })
    expect(human.stdout).toContain(`skipped stamp: this minute's run happens (or happened) in process ${process.pid} on this host\n`)
    expect(await stampsOf()).toEqual([{ minute }])
    const stopped = await work.stop()
    expect(stopped.exitCode).toBe(0)
    expect(stopped.stderr).toMatch(/Running 5 scheduled tasks every minute \(UTC\)/)
    expect(stopped.stdout).toMatch(/Scheduler stopped\.\n$/)
  }, 90_000)
})
