/** Written by `svc make:auth`: security events (refresh token reuse, lockouts). */
import type { Database } from 'svc'

export async function up(db: Database): Promise<void> {
  await db.execute(`create table security_events (
    id integer primary key autoincrement,
    type text not null,
    user_id integer,
    ip text,
    details text,
    created_at text not null
  )`)
  await db.execute(`create index security_events_user_id on security_events (user_id)`)
}

export async function down(db: Database): Promise<void> {
  await db.execute(`drop table security_events`)
}
