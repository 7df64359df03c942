/** Written by `svc make:auth`: users (email unique, compared case-insensitively). */
import type { Database } from 'svc'

export async function up(db: Database): Promise<void> {
  await db.execute(`create table users (
    id integer primary key autoincrement,
    name text not null,
    email text not null collate nocase unique,
    password text not null,
    role text not null default 'user',
    status integer not null default 1,
    token_version integer not null default 0,
    login_attempts integer not null default 0,
    locked_until text,
    email_verified_at text,
    created_at text not null default (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at text not null default (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
  )`)
}

export async function down(db: Database): Promise<void> {
  await db.execute(`drop table users`)
}
