/**
 * The table of the `idempotent` middleware, as SQL kept in one place:
 * `idempotencyMigration` (a value) and the file `svc make:idempotency-table`
 * writes are both built from it. Times are milliseconds since the epoch.
 */
import { toMigration, type MigrationSource } from '../auth/schema.ts'
import type { Migration } from '../database/migrator.ts'

export const IDEMPOTENCY_MIGRATION_SOURCE: MigrationSource = {
  name: '20260101000800_create_idempotency_keys_table',
  description: 'idempotency_keys of the idempotent middleware (IETF Idempotency-Key)',
  up: [
    `create table idempotency_keys (
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
  )`,
    'create index idempotency_keys_expires_at on idempotency_keys (expires_at)',
  ],
  down: ['drop table idempotency_keys'],
}

/** `migrate(db, [...authMigrations, idempotencyMigration])` */
export const idempotencyMigration: Migration = toMigration(IDEMPOTENCY_MIGRATION_SOURCE)
