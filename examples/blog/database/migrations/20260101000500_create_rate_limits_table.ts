/** Written by `svc make:auth`: counters of the database-backed throttle store (THROTTLE_STORE=database). */
import type { Database } from 'svc'

export async function up(db: Database): Promise<void> {
  await db.execute(`create table rate_limits (
    key text primary key,
    hits integer not null,
    reset_at integer not null
  )`)
  await db.execute(`create index rate_limits_reset_at on rate_limits (reset_at)`)
}

export async function down(db: Database): Promise<void> {
  await db.execute(`drop table rate_limits`)
}
