/**
 * The app's scheduled tasks, run by `svc schedule:run` from cron every minute
 * (`* * * * * cd /path/to/app && npx svc schedule:run`); `svc schedule:list` shows them.
 * svc's own prunes run beside them: expired idempotency keys (hourly), expired refresh
 * tokens and old traces (daily).
 */
import { dailyAt, defineSchedule } from 'svc'

export default defineSchedule([
  // Failed jobs are kept for `svc queue:retry`; after 30 days nobody will retry them.
  dailyAt('04:00', async function pruneFailedJobs({ db }) {
    await db.execute("delete from failed_jobs where failed_at < strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-30 days')")
  }),
])
