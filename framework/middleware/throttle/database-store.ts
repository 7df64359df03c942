/**
 * Throttle counters in the `rate_limits` table, shared by every process and
 * instance on the database. One upsert per hit: atomic in SQLite/libSQL, so
 * concurrent hits from several processes are all counted.
 */
import type { Database } from '../../database/database.ts'
import type { ThrottleStore } from './store.ts'

export function databaseThrottleStore(db: Database): ThrottleStore {
  let hits = 0
  return {
    name: 'database',
    async hit(key, windowMs, now) {
      if (++hits % 1000 === 0) await db.execute('delete from rate_limits where reset_at <= ?', [now])
      const result = await db.execute(
        `insert into rate_limits (key, hits, reset_at) values (?1, 1, ?2 + ?3)
         on conflict (key) do update set
           hits = case when reset_at <= ?2 then 1 else hits + 1 end,
           reset_at = case when reset_at <= ?2 then ?2 + ?3 else reset_at end
         returning hits, reset_at`,
        [key, now, windowMs],
      )
      const row = result.rows[0]!
      return { count: Number(row.hits), resetAt: Number(row.reset_at) }
    },
    async peek(key, now) {
      const result = await db.execute('select hits, reset_at from rate_limits where key = ? and reset_at > ?', [key, now])
      const row = result.rows[0]
      return row === undefined ? undefined : { count: Number(row.hits), resetAt: Number(row.reset_at) }
    },
    async reset(key) {
      await db.execute('delete from rate_limits where key = ?', [key])
    },
  }
}
