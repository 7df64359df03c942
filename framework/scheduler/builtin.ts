/**
 * svc's own scheduled tasks, run by `schedule:run` beside the app's: expired
 * idempotency keys (hourly) and expired refresh tokens (daily, 03:10 UTC).
 * The CLI adds the trace prune (daily, 03:20 UTC, `TRACE_RETENTION_DAYS`).
 * A task whose table the app does not have does nothing. They prune as of
 * the real time, not the minute they run for (`schedule:run --at`).
 */
import { hasTable } from '../database/has-table.ts'
import { pruneIdempotencyKeys } from '../idempotency/store.ts'
import { builtinTask, type ScheduledTask } from './schedule.ts'

export const pruneIdempotencyKeysTask: ScheduledTask = builtinTask(
  '0 * * * *',
  async ({ db }) => {
    if (await hasTable(db, 'idempotency_keys')) await pruneIdempotencyKeys(db, Date.now())
  },
  { name: 'svc:prune-idempotency-keys', timezone: 'UTC', description: 'Delete expired idempotency keys' },
)

export const pruneRefreshTokensTask: ScheduledTask = builtinTask(
  '10 3 * * *',
  async ({ db }) => {
    if (await hasTable(db, 'refresh_tokens')) await db.execute('delete from refresh_tokens where expires_at < ?', [new Date().toISOString()])
  },
  { name: 'svc:prune-refresh-tokens', timezone: 'UTC', description: 'Delete expired refresh tokens' },
)

export const BUILTIN_TASKS: readonly ScheduledTask[] = [pruneIdempotencyKeysTask, pruneRefreshTokensTask]
