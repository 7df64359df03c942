/** Written by `svc make:auth`: single-use tokens for email verification and password reset, stored hashed. */
import type { Database } from 'svc'

export async function up(db: Database): Promise<void> {
  await db.execute(`create table one_time_tokens (
    id integer primary key autoincrement,
    user_id integer not null references users (id) on delete cascade,
    purpose text not null,
    token_hash text not null unique,
    expires_at text not null,
    used_at text,
    created_at text not null
  )`)
  await db.execute(`create index one_time_tokens_user_id on one_time_tokens (user_id, purpose)`)
}

export async function down(db: Database): Promise<void> {
  await db.execute(`drop table one_time_tokens`)
}
