/** When a task runs: croner reads the expression in the task's time zone (or the schedule's default). */
import { Cron } from 'croner'
import type { ScheduledTask } from './schedule.ts'

/** The start of the minute `at` is in. */
export function minuteOf(at: Date): Date {
  return new Date(Math.floor(at.getTime() / 60_000) * 60_000)
}

function cronOf(task: ScheduledTask, defaultTimezone: string): Cron {
  return new Cron(task.cron, { paused: true, timezone: task.timezone ?? defaultTimezone })
}

/** True when the task runs in the minute `at` is in. */
export function isDue(task: ScheduledTask, at: Date, defaultTimezone = 'UTC'): boolean {
  return cronOf(task, defaultTimezone).match(minuteOf(at))
}

/** The next minute (after `at`) the task runs in, or null when it never does again. */
export function nextRunOf(task: ScheduledTask, at: Date, defaultTimezone = 'UTC'): Date | null {
  return cronOf(task, defaultTimezone).nextRun(at)
}
