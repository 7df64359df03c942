/**
 * What an app schedules (`app/schedule.ts`): tasks with a cron expression,
 * read by `svc schedule:run` (every minute, from cron) and `svc schedule:list`.
 * Expressions are read by croner (5 fields, or @hourly-style nicknames), in
 * the task's time zone (`SCHEDULE_TIMEZONE`, UTC by default).
 *
 * @example
 * export default defineSchedule([
 *   dailyAt('02:00', pruneDrafts, { timezone: 'Europe/Paris' }),
 *   cron('*\/15 * * * *', async function syncFeeds({ db }) { ... }),
 *   everyMinute(heartbeat),
 * ])
 */
import { Cron } from 'croner'
import type { JobServices } from '../queue/job.ts'

/** The app's services, each always there (a missing one is a stand-in that throws when used, naming it), as a job's and a listener's. */
export interface TaskContext extends Required<JobServices> {
  /** The minute this run is for (the start of it). */
  readonly now: Date
  readonly task: { readonly name: string }
}

export type TaskRun = (context: TaskContext) => Promise<void> | void

export interface TaskOptions {
  /** The name the lock and `schedule:list` use; default the function's name. Unique. */
  name?: string
  /** IANA time zone the expression is read in; default SCHEDULE_TIMEZONE, else UTC. */
  timezone?: string
  /**
   * How long a run holds its lock (minutes, default 30): no other run of the
   * task starts meanwhile, on any host. A run that ends releases it; one whose
   * host died holds it this long. Make it longer than the task's longest run.
   */
  lockMinutes?: number
  description?: string
}

export interface ScheduledTask {
  readonly name: string
  readonly cron: string
  readonly timezone: string | undefined
  readonly lockMs: number
  readonly description: string | undefined
  readonly builtin: boolean
  run: TaskRun
}

export interface Schedule {
  readonly kind: 'svc.schedule'
  readonly tasks: readonly ScheduledTask[]
}

const DEFAULT_LOCK_MINUTES = 30

export class ScheduleDefinitionError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ScheduleDefinitionError'
  }
}

/** A task on a cron expression: `cron('0 * * * *', task)`. */
export function cron(expression: string, run: TaskRun, options: TaskOptions = {}): ScheduledTask {
  return scheduledTask(expression, run, options, false)
}

/** Internal: svc's own tasks (listed as built-in). */
export function builtinTask(expression: string, run: TaskRun, options: TaskOptions & { name: string }): ScheduledTask {
  return scheduledTask(expression, run, options, true)
}

export const everyMinute = (run: TaskRun, options?: TaskOptions) => cron('* * * * *', run, options)
export const everyFiveMinutes = (run: TaskRun, options?: TaskOptions) => cron('*/5 * * * *', run, options)
export const hourly = (run: TaskRun, options?: TaskOptions) => cron('0 * * * *', run, options)
export const daily = (run: TaskRun, options?: TaskOptions) => cron('0 0 * * *', run, options)

/** Every day at `HH:MM` (24-hour clock, in the task's time zone). */
export function dailyAt(time: string, run: TaskRun, options?: TaskOptions): ScheduledTask {
  const match = /^([01]?\d|2[0-3]):([0-5]\d)$/.exec(time)
  if (match === null) throw new ScheduleDefinitionError(`dailyAt("${time}"): expected HH:MM, 00:00 to 23:59`)
  return cron(`${Number(match[2])} ${Number(match[1])} * * *`, run, options)
}

/** @example export default defineSchedule([hourly(pruneSessions)]) */
export function defineSchedule(tasks: readonly ScheduledTask[]): Schedule {
  const seen = new Set<string>()
  for (const task of tasks) {
    if (seen.has(task.name)) throw new ScheduleDefinitionError(`Two scheduled tasks are named "${task.name}": pass { name } to tell them apart`)
    seen.add(task.name)
  }
  return { kind: 'svc.schedule', tasks }
}

export function isSchedule(value: unknown): value is Schedule {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'svc.schedule'
}

function scheduledTask(expression: string, run: TaskRun, options: TaskOptions, builtin: boolean): ScheduledTask {
  const name = options.name ?? run.name
  if (!name) throw new ScheduleDefinitionError(`The task on "${expression}" has no name: use a named function or pass { name }`)
  if (!/^[\w.:-]{1,128}$/.test(name)) throw new ScheduleDefinitionError(`Task name "${name}": use letters, digits, '.', ':', '_' or '-'`)
  const trimmed = expression.trim()
  if (!trimmed.startsWith('@') && trimmed.split(/\s+/).length !== 5) {
    throw new ScheduleDefinitionError(`Task "${name}": "${expression}" is not a 5-field cron expression (minute hour day month weekday)`)
  }
  if (options.timezone !== undefined && !isTimeZone(options.timezone)) {
    throw new ScheduleDefinitionError(`Task "${name}": unknown time zone "${options.timezone}" (use an IANA name such as Europe/Paris)`)
  }
  try {
    new Cron(trimmed, { paused: true, timezone: options.timezone })
  } catch (error) {
    throw new ScheduleDefinitionError(`Task "${name}": ${(error as Error).message}`)
  }
  const lockMinutes = options.lockMinutes ?? DEFAULT_LOCK_MINUTES
  if (!(lockMinutes > 0)) throw new ScheduleDefinitionError(`Task "${name}": lockMinutes must be positive`)
  return { name, cron: trimmed, timezone: options.timezone, lockMs: lockMinutes * 60_000, description: options.description, builtin, run }
}

/** True for a time zone this runtime knows (an IANA name such as `Europe/Paris`, or `UTC`). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone })
    return true
  } catch {
    return false
  }
}
