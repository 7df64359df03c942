/**
 * `schedule:run`: the tasks due in this minute, each under a lock row
 * (`schedule_locks`) so that it runs once per minute however many hosts run
 * the scheduler, and never while a run of it is still going. The claim is one
 * statement (`INSERT ... ON CONFLICT DO UPDATE ... WHERE <lock free and this
 * minute not run yet> RETURNING`); the run releases the lock when it ends, and
 * a run whose host died releases it when the lock expires (`lockMinutes`).
 */
import type { Database } from '../database/database.ts'
import { storableText } from '../database/argument-check.ts'
import { hasTable } from '../database/has-table.ts'
import { servicesOrStandIns, type JobServices } from '../queue/job.ts'
import { isDue, minuteOf } from './due.ts'
import type { ScheduledTask } from './schedule.ts'

export const SCHEDULE_LOCKS_TABLE = `create table if not exists schedule_locks (
  task text primary key,
  owner text not null,
  run_key text not null,
  locked_until integer not null,
  started_at integer not null,
  finished_at integer,
  last_status text,
  last_error text
)`

export type TaskStatus = 'ran' | 'failed' | 'skipped'

export interface TaskResult {
  task: string
  status: TaskStatus
  /** Why it was skipped: another host runs (or ran) it for this minute, or a run of it still holds the lock. */
  reason?: 'already_ran' | 'locked'
  /** For a skipped task: who holds this minute's run or the lock, as the runner's `owner` names it (`host:pid` from the CLI). */
  heldBy?: string
  durationMs?: number
  error?: string
}

export interface RunScheduleOptions {
  tasks: readonly ScheduledTask[]
  db: Database
  services: JobServices
  /** The time to run for (default now): the tasks due in its minute run. */
  now?: Date
  /** The zone of tasks that name none; default UTC. */
  timezone?: string
  /** Run only this task, due or not (still under its lock). */
  only?: string
  /** Names the lock's holder (host and process). */
  owner?: string
  onResult?: (result: TaskResult) => void
}

/** Runs the due tasks (at once, each under its own lock); returns what happened to each. */
export async function runSchedule(options: RunScheduleOptions): Promise<TaskResult[]> {
  const now = options.now ?? new Date()
  const minute = minuteOf(now)
  const chosen =
    options.only !== undefined
      ? options.tasks.filter((task) => task.name === options.only)
      : options.tasks.filter((task) => isDue(task, now, options.timezone))
  if (chosen.length === 0) return []
  await options.db.execute(SCHEDULE_LOCKS_TABLE)
  const owner = `${options.owner ?? 'svc'}:${crypto.randomUUID()}`
  // A run asked for by name is its own run: it does not count as this minute's.
  const runKey = options.only !== undefined ? `manual:${crypto.randomUUID()}` : minute.toISOString()
  return Promise.all(
    chosen.map(async (task) => {
      const result = await runTask(task, { ...options, now: minute, owner, runKey })
      options.onResult?.(result)
      return result
    }),
  )
}

async function runTask(task: ScheduledTask, options: RunScheduleOptions & { now: Date; owner: string; runKey: string }): Promise<TaskResult> {
  const { db, owner, runKey } = options
  const nowMs = options.now.getTime()
  const claimed = await db.first<{ owner: string }>(
    `insert into schedule_locks (task, owner, run_key, locked_until, started_at) values (?, ?, ?, ?, ?)
      on conflict (task) do update set owner = excluded.owner, run_key = excluded.run_key, locked_until = excluded.locked_until,
        started_at = excluded.started_at, finished_at = null
      where schedule_locks.locked_until <= ? and schedule_locks.run_key <> excluded.run_key
      returning owner`,
    [task.name, owner, runKey, Date.now() + task.lockMs, nowMs, Date.now()],
  )
  if (claimed?.owner !== owner) {
    const held = await db.first<{ run_key: string; owner: string }>('select run_key, owner from schedule_locks where task = ?', [task.name])
    const result: TaskResult = { task: task.name, status: 'skipped', reason: held?.run_key === runKey ? 'already_ran' : 'locked' }
    // The owner without the run's own uuid: the host and process a user can look for.
    if (held !== undefined) result.heldBy = held.owner.slice(0, held.owner.lastIndexOf(':'))
    return result
  }
  const started = performance.now()
  let error: string | undefined
  try {
    // The run's own database is the task's when the host gave none.
    const services = servicesOrStandIns({ ...options.services, db: options.services.db ?? db }, (name) => `This schedule run was given no ${name} (services.${name})`)
    await task.run({ ...services, now: options.now, task: { name: task.name } })
  } catch (failure) {
    error = failure instanceof Error ? failure.message : String(failure)
  }
  const durationMs = Math.round(performance.now() - started)
  await db.execute(
    `update schedule_locks set locked_until = 0, finished_at = ?, last_status = ?, last_error = ?
      where task = ? and owner = ? and run_key = ?`,
    [Date.now(), error === undefined ? 'ran' : 'failed', error === undefined ? null : storableText(error), task.name, owner, runKey],
  )
  return error === undefined ? { task: task.name, status: 'ran', durationMs } : { task: task.name, status: 'failed', durationMs, error }
}

/**
 * The last run of each task, as the lock rows remember it (for `schedule:list`).
 * It only reads: before the first `schedule:run` there is no lock table, and no task has run.
 */
export async function lastRuns(db: Database): Promise<Map<string, { startedAt: number; finishedAt: number | null; status: string | null; error: string | null; running: boolean }>> {
  if (!(await hasTable(db, 'schedule_locks'))) return new Map()
  const rows = await db.all<{ task: string; started_at: number; finished_at: number | null; last_status: string | null; last_error: string | null; locked_until: number }>(
    'select task, started_at, finished_at, last_status, last_error, locked_until from schedule_locks',
  )
  return new Map(
    rows.map((row) => [
      row.task,
      { startedAt: row.started_at, finishedAt: row.finished_at, status: row.last_status, error: row.last_error, running: row.locked_until > Date.now() },
    ]),
  )
}
