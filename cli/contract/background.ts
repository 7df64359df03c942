/**
 * The `--json` documents of the background-work commands: queues
 * (`queue:status`, `queue:flush`, `queue:retry`) and the scheduler
 * (`schedule:list`, `schedule:run`).
 *
 * | command       | document         |
 * |---------------|------------------|
 * | queue:status  | QueueStatusJson  |
 * | queue:flush   | QueueFlushJson   |
 * | queue:retry   | QueueRetryJson   |
 * | schedule:list | ScheduleListJson |
 * | schedule:run  | ScheduleRunJson  |
 */

/** Which driver holds the jobs (QUEUE_CONNECTION). */
export type QueueConnectionJson = 'sync' | 'database' | 'redis'

export interface QueueCountsJson {
  queue: string
  /** Ready to run now. */
  pending: number
  /** Waiting for their time (a delay, or a retry's backoff). */
  delayed: number
  /** Held by a worker now. */
  reserved: number
  failed: number
}

export interface FailedJobJson {
  /** What `queue:retry <id>` takes. */
  id: string
  queue: string
  name: string
  attempts: number
  error: string
  stack: string | null
  /** ISO 8601. */
  failed_at: string
  payload: unknown
}

export interface QueueStatusJson {
  connection: QueueConnectionJson
  /** Every queue that holds a job or a failed job, by name. */
  queues: QueueCountsJson[]
  totals: Omit<QueueCountsJson, 'queue'>
  /** Newest first, at most `--limit`. */
  failed_jobs: FailedJobJson[]
  /** The `queue:work --daemon` running for this app, if any. */
  daemon: { pid: number } | null
}

export interface QueueFlushJson {
  connection: QueueConnectionJson
  /** The queue flushed, or null for every queue. */
  queue: string | null
  flushed: number
}

export interface QueueRetryJson {
  connection: QueueConnectionJson
  /** The ids asked for, or `all`. */
  requested: string[] | 'all'
  retried: number
  /** The ids asked for that named no failed job (not retried); empty with `all`. When none of them did, the command fails instead (E_NO_FAILED_JOB). */
  missing: string[]
}

/** `schedule:list`: every task with its next run. */
export interface ScheduleListJson {
  /** SCHEDULE_TIMEZONE: the zone of tasks that name none. */
  timezone: string
  tasks: ScheduledTaskJson[]
}

export interface ScheduledTaskJson {
  name: string
  cron: string
  /** The zone its expression is read in. */
  timezone: string
  description: string | null
  /** svc's own task (a prune), not the app's. */
  builtin: boolean
  /** ISO 8601, or null when it never runs again. */
  next_run: string | null
  last_run: { started_at: string; finished_at: string | null; status: string | null; error: string | null; running: boolean } | null
}

/** `schedule:run`: what happened to each task due in the minute. */
export interface ScheduleRunJson {
  /** The minute run for (ISO 8601). */
  minute: string
  results: Array<{
    task: string
    status: 'ran' | 'failed' | 'skipped'
    /** Why skipped: this minute's run happens (or happened) elsewhere, or a run of the task still holds its lock. */
    reason: 'already_ran' | 'locked' | null
    /** For a skipped task: the run that holds the minute or the lock, as `host:pid`. */
    held_by: string | null
    duration_ms: number | null
    error: string | null
  }>
}
