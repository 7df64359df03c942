/** Written by `svc make:idempotency-table`: idempotency_keys of the idempotent middleware (IETF Idempotency-Key). */
import type { Database } from 'svc'

export async function up(db: Database): Promise<void> {
  await db.execute(`create table idempotency_keys (
    id integer primary key autoincrement,
    scope text not null,
    method text not null,
    path text not null,
    idempotency_key text not null,
    fingerprint text not null,
    status text not null,
    lock_token text,
    locked_at integer,
    response_status integer,
    response_headers text,
    response_body blob,
    created_at integer not null,
    expires_at integer not null,
    unique (scope, method, path, idempotency_key)
  )`)
  await db.execute(`create index idempotency_keys_expires_at on idempotency_keys (expires_at)`)
}

export async function down(db: Database): Promise<void> {
  await db.execute(`drop table idempotency_keys`)
}
