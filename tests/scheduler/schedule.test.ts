/**
 * The scheduler's core: the helpers and their cron expressions, time zones
 * (croner), and runSchedule's lock row on a libSQL file: once per minute
 * however many runners, never beside a run still going, a dead run's lock
 * expiring, failures reported and releasing the lock.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  cron,
  daily,
  dailyAt,
  defineSchedule,
  everyMinute,
  hourly,
  isDue,
  nextRunOf,
  runSchedule,
  ScheduleDefinitionError,
  type Database,
} from '../../framework/index.ts'
import { openDatabase } from '../../framework/node/index.ts'
import { lastRuns } from '../../framework/scheduler/index.ts'

describe('schedule helpers', () => {
  it('turn into cron expressions named after the function', () => {
    async function pruneDrafts() {}
    expect(dailyAt('02:30', pruneDrafts)).toMatchObject({ name: 'pruneDrafts', cron: '30 2 * * *', builtin: false, lockMs: 30 * 60_000 })
    expect(dailyAt('7:05', pruneDrafts).cron).toBe('5 7 * * *')
    expect(everyMinute(pruneDrafts).cron).toBe('* * * * *')
    expect(hourly(pruneDrafts).cron).toBe('0 * * * *')
    expect(daily(pruneDrafts, { name: 'other', lockMinutes: 5 })).toMatchObject({ name: 'other', cron: '0 0 * * *', lockMs: 300_000 })
    expect(cron('@hourly', pruneDrafts).cron).toBe('@hourly')
  })

  it('refuse what cannot be a schedule, saying why', () => {
    const task = async function task() {}
    expect(() => dailyAt('24:00', task)).toThrow(ScheduleDefinitionError)
    expect(() => dailyAt('2pm', task)).toThrow(/expected HH:MM/)
    expect(() => cron('* * * *', task)).toThrow(/not a 5-field cron expression/)
    expect(() => cron('61 * * * *', task)).toThrow(/Task "task"/)
    expect(() => cron('* * * * *', async () => {})).toThrow(/has no name/)
    expect(() => cron('* * * * *', task, { timezone: 'Mars/Olympus' })).toThrow(ScheduleDefinitionError)
    expect(() => defineSchedule([everyMinute(task), hourly(task)])).toThrow(/Two scheduled tasks are named "task"/)
  })

  it('read expressions in the task time zone', () => {
    const task = dailyAt('02:00', async function nightly() {}, { timezone: 'Europe/Paris' })
    // Paris is UTC+1 in January, UTC+2 in July.
    expect(isDue(task, new Date('2026-01-15T01:00:30Z'))).toBe(true)
    expect(isDue(task, new Date('2026-01-15T02:00:00Z'))).toBe(false)
    expect(isDue(task, new Date('2026-07-15T00:00:00Z'))).toBe(true)
    expect(nextRunOf(task, new Date('2026-01-15T01:30:00Z'))?.toISOString()).toBe('2026-01-16T01:00:00.000Z')
    // Without its own zone, the schedule's default applies.
    const utc = dailyAt('02:00', async function plain() {})
    expect(isDue(utc, new Date('2026-01-15T02:00:59Z'))).toBe(true)
    expect(isDue(utc, new Date('2026-01-15T01:00:00Z'), 'Europe/Paris')).toBe(true)
  })
})

describe('runSchedule', () => {
  let dir: string
  let db: Database
  const at = new Date('2026-03-01T10:00:20Z')

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-schedule-'))
    db = await openDatabase({ storageDir: dir, projectDir: dir })
  })
  afterAll(() => {
    db?.close()
    rmSync(dir, { recursive: true, force: true })
  })
  beforeEach(async () => {
    await db.execute('drop table if exists schedule_locks')
  })

  it('runs the due tasks with the minute and the services, and skips the others', async () => {
    const seen: string[] = []
    const tasks = [
      everyMinute(async function ping({ now, task, db: handle }) {
        seen.push(`${task.name} ${now.toISOString()} ${handle === db}`)
      }),
      dailyAt('03:00', async function nightly() {
        seen.push('nightly')
      }),
    ]
    const results = await runSchedule({ tasks, db, services: { db }, now: at })
    expect(results).toEqual([{ task: 'ping', status: 'ran', durationMs: expect.any(Number) }])
    expect(seen).toEqual(['ping 2026-03-01T10:00:00.000Z true'])
    // Asked for by name, a task runs whether due or not.
    expect((await runSchedule({ tasks, db, services: { db }, now: at, only: 'nightly' }))[0]).toMatchObject({ task: 'nightly', status: 'ran' })
  })

  it("runs a minute's task once however many runners start at once", async () => {
    let runs = 0
    const tasks = [
      everyMinute(async function counted() {
        runs++
        await new Promise((resolve) => setTimeout(resolve, 30))
      }),
    ]
    const results = await Promise.all([1, 2, 3].map(() => runSchedule({ tasks, db, services: {}, now: at })))
    expect(runs).toBe(1)
    expect(results.flat().map((result) => result.status).sort()).toEqual(['ran', 'skipped', 'skipped'])
    expect(results.flat().filter((result) => result.status === 'skipped').map((result) => result.reason)).toEqual(['already_ran', 'already_ran'])
    // Once done, the same minute does not run again; the next minute does.
    expect((await runSchedule({ tasks, db, services: {}, now: at }))[0]).toMatchObject({ status: 'skipped', reason: 'already_ran' })
    expect((await runSchedule({ tasks, db, services: {}, now: new Date(at.getTime() + 60_000) }))[0]).toMatchObject({ status: 'ran' })
    expect(runs).toBe(2)
  })

  it('never starts a run beside one still going; a dead run frees the lock when it expires', async () => {
    let release!: () => void
    const slow = everyMinute(
      async function slow() {
        await new Promise<void>((resolve) => (release = resolve))
      },
      { lockMinutes: 0.01 },
    )
    const first = runSchedule({ tasks: [slow], db, services: {}, now: at })
    await new Promise((resolve) => setTimeout(resolve, 50))
    const next = at.getTime() + 60_000
    // Within the 600 ms lock: the next minute's run is skipped.
    expect((await runSchedule({ tasks: [slow], db, services: {}, now: new Date(next) }))[0]).toMatchObject({ status: 'skipped', reason: 'locked' })
    // The first run "died" holding the lock; past its expiry another run may start.
    await new Promise((resolve) => setTimeout(resolve, 700))
    const quick = everyMinute(async function slow() {}, { lockMinutes: 0.01 })
    expect((await runSchedule({ tasks: [quick], db, services: {}, now: new Date(next) }))[0]).toMatchObject({ status: 'ran' })
    release()
    await first
  })

  it('reports a failing task and releases its lock', async () => {
    const tasks = [
      everyMinute(async function broken() {
        throw new Error('no network')
      }),
    ]
    expect(await runSchedule({ tasks, db, services: {}, now: at })).toEqual([{ task: 'broken', status: 'failed', durationMs: expect.any(Number), error: 'no network' }])
    expect((await runSchedule({ tasks, db, services: {}, now: new Date(at.getTime() + 60_000) }))[0]).toMatchObject({ status: 'failed' })
    const row = await db.first<{ locked_until: number; last_status: string; last_error: string }>("select * from schedule_locks where task = 'broken'")
    expect(row).toMatchObject({ locked_until: 0, last_status: 'failed', last_error: 'no network' })
  })

  it('lastRuns only reads: before any run it answers no runs and makes no lock table; after one, no statement but select', async () => {
    const sent: string[] = []
    const watched = db.withObserver((query) => sent.push(query.sql))
    expect(await lastRuns(watched)).toEqual(new Map())
    expect(await db.first("select 1 from sqlite_master where name = 'schedule_locks'")).toBeUndefined()
    await runSchedule({ tasks: [everyMinute(async function once() {})], db, services: {}, now: at })
    sent.length = 0
    expect([...(await lastRuns(watched)).keys()]).toEqual(['once'])
    expect(sent.filter((sql) => !/^\s*select\b/i.test(sql))).toEqual([])
  })
})
