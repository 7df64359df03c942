/** Written by `svc make:auth`: refresh tokens, stored hashed, in rotation families. */
import type { Database } from 'svc'

export async function up(db: Database): Promise<void> {
  await db.execute(`create table refresh_tokens (
    id text primary key,
    user_id integer not null references users (id) on delete cascade,
    family_id text not null,
    token_hash text not null unique,
    expires_at text not null,
    created_at text not null,
    revoked_at text,
    revoked_reason text,
    replaced_by text
  )`)
  await db.execute(`create index refresh_tokens_family_id on refresh_tokens (family_id)`)
  await db.execute(`create index refresh_tokens_user_id on refresh_tokens (user_id)`)
}

export async function down(db: Database): Promise<void> {
  await db.execute(`drop table refresh_tokens`)
}
