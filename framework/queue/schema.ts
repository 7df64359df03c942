/**
 * The tables of the `database` queue driver, as SQL kept in one place:
 * `queueMigration` (a value, for fetch runtimes and tests) and the file
 * `svc make:queue-table` writes are both built from it. Times are
 * milliseconds since the epoch: the claim compares them in SQL.
 */
import { toMigration, type MigrationSource } from '../auth/schema.ts'
import type { Migration } from '../database/migrator.ts'

/**
 * The fix for missing queue tables when the database at hand cannot be read
 * for a better one (the CLI reads it: explainMissingTable): an app made by
 * svc new has no jobs migration (make:queue-table writes it), the example
 * and most apps have it and only need svc migrate. Saying make:queue-table
 * alone sent users to write a migration they had.
 */
export const QUEUE_TABLES_FIX =
  'svc migrate creates them when database/migrations has the jobs migration (create_jobs_table); without one, svc make:queue-table writes it first (a fetch runtime: add queueMigration to its migrations)'

export const QUEUE_MIGRATION_SOURCE: MigrationSource = {
  name: '20260101000700_create_jobs_table',
  description: 'jobs and failed_jobs of the database queue driver',
  up: [
    `create table jobs (
    id integer primary key autoincrement,
    queue text not null,
    name text not null,
    payload text not null,
    attempts integer not null default 0,
    max_attempts integer not null,
    backoff text not null default '{}',
    timeout_ms integer,
    available_at integer not null,
    reserved_at integer,
    reserved_by text,
    created_at integer not null
  )`,
    'create index jobs_queue_available_at on jobs (queue, available_at, id)',
    `create table failed_jobs (
    id integer primary key autoincrement,
    job_id integer,
    queue text not null,
    name text not null,
    payload text not null,
    attempts integer not null,
    max_attempts integer not null,
    backoff text not null default '{}',
    timeout_ms integer,
    error text not null,
    stack text,
    failed_at text not null
  )`,
    'create index failed_jobs_queue on failed_jobs (queue)',
  ],
  down: ['drop table failed_jobs', 'drop table jobs'],
}

/** `migrate(db, [...authMigrations, queueMigration])` */
export const queueMigration: Migration = toMigration(QUEUE_MIGRATION_SOURCE)
