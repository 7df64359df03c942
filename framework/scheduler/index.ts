/** The scheduler: tasks on cron expressions (`app/schedule.ts`), run by `svc schedule:run`. See docs/scheduler.md. */
export {
  cron,
  everyMinute,
  everyFiveMinutes,
  hourly,
  daily,
  dailyAt,
  defineSchedule,
  isSchedule,
  isTimeZone,
  builtinTask,
  ScheduleDefinitionError,
  type Schedule,
  type ScheduledTask,
  type TaskContext,
  type TaskOptions,
  type TaskRun,
} from './schedule.ts'
export { isDue, nextRunOf, minuteOf } from './due.ts'
export { runSchedule, lastRuns, SCHEDULE_LOCKS_TABLE, type RunScheduleOptions, type TaskResult, type TaskStatus } from './runner.ts'
export { BUILTIN_TASKS, pruneIdempotencyKeysTask, pruneRefreshTokensTask } from './builtin.ts'
