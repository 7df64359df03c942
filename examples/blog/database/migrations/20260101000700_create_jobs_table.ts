/** Written by `svc make:queue-table`: jobs and failed_jobs of the database queue driver. */
import type { Database } from 'svc'

export async function up(db: Database): Promise<void> {
  await db.execute(`create table jobs (
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
  )`)
  await db.execute(`create index jobs_queue_available_at on jobs (queue, available_at, id)`)
  await db.execute(`create table failed_jobs (
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
  )`)
  await db.execute(`create index failed_jobs_queue on failed_jobs (queue)`)
}

export async function down(db: Database): Promise<void> {
  await db.execute(`drop table failed_jobs`)
  await db.execute(`drop table jobs`)
}
