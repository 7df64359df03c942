/**
 * Type-level test: the tasks of docs/scheduler.md, as written there, compile:
 * a task gets `db`, `mailer`, `queue` and `config` as they are (it was TS18048
 * 'db' is possibly 'undefined' on a new app's first `app/schedule.ts`, while
 * jobs and listeners already got them whole).
 */
import { cron, daily, defineJob, defineSchedule, type AppConfig, type Database, type Mailer, type Queue, type TaskContext } from 'svc'

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false
function expectType<T extends true>(): T | undefined {
  return undefined
}

const syncFeedsJob = defineJob('sync-feeds', { async handle() {} })

// docs/scheduler.md
export default defineSchedule([
  daily(async function pruneOldBookmarks({ db }) {
    await db.execute("delete from bookmarks where created_at < strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-365 days')")
  }),
  cron('*/15 * * * *', async function syncFeeds({ queue }) {
    await queue.dispatch(syncFeedsJob, {})
  }),
  cron('0 8 * * 1', async function weeklyNote({ mailer, config, now }) {
    await mailer.send({ to: 'team@example.com', subject: `Week of ${now.toISOString()} (${config.env})`, text: '...' })
  }),
])

expectType<Equal<TaskContext['db'], Database>>()
expectType<Equal<TaskContext['mailer'], Mailer>>()
expectType<Equal<TaskContext['queue'], Queue>>()
expectType<Equal<TaskContext['config'], AppConfig>>()
