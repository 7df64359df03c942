/**
 * Runs migrations given as values (`{ name, up, down }`), so the same runner
 * serves the CLI (which finds them as files) and a fetch runtime (which
 * bundles them: `svc migrate:bundle`). Each migration is applied atomically
 * together with its row in the `migrations` table: a failing one leaves
 * earlier ones applied. Where the driver has interactive transactions
 * (libSQL) that is one transaction around `up()`; where it has not (D1), the
 * statements `up()` writes are collected and run as one batch with the row,
 * so a migration's reads see the database as it was before it.
 */
import type { Database } from './database.ts'
import { collectWrites } from './collect-writes.ts'
import { hasTable } from './has-table.ts'
import { ServiceBusyError } from '../http/service-busy.ts'

export interface Migration {
  /** `<timestamp>_<name>`, the sort key. */
  name: string
  up(db: Database): Promise<void>
  down?(db: Database): Promise<void>
}

export interface MigrationStatus {
  name: string
  batch: number | null
  ran_at: string | null
}

/**
 * Why a migration stopped a run: its `up()` or `down()` threw, or a rollback
 * found it without a file (`missing_file`: applied, but no migration of that
 * name was given) or without `down()` (`no_down`).
 */
export type MigrationFailure = 'up' | 'down' | 'missing_file' | 'no_down'

export class MigrationError extends Error {
  readonly migration: string
  readonly reason: MigrationFailure
  constructor(migration: string, cause: unknown, reason: MigrationFailure = 'up') {
    const what = reason === 'missing_file' || reason === 'no_down' ? 'cannot be rolled back' : 'failed'
    super(`Migration ${migration} ${what}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause })
    this.name = 'MigrationError'
    this.migration = migration
    this.reason = reason
  }
}

const CREATE_TABLE = `create table if not exists migrations (
  id integer primary key autoincrement,
  name text not null unique,
  batch integer not null,
  ran_at text not null
)`

/** Which migrations ran. It only reads: a database without the migrations table has every migration pending. */
export async function migrationStatus(db: Database, migrations: Migration[]): Promise<MigrationStatus[]> {
  const applied = (await hasTable(db, 'migrations')) ? await appliedMigrations(db) : []
  const known = new Map(applied.map((row) => [row.name, row]))
  const names = new Set([...migrations.map((m) => m.name), ...applied.map((row) => row.name)])
  return [...names].sort().map((name) => known.get(name) ?? { name, batch: null, ran_at: null })
}

/** Told when each migration starts and ends (a command's progress display). */
export interface MigrationEvents {
  onMigration?(event: { name: string; index: number; total: number; done: boolean }): void
}

/**
 * Applies every pending migration as one new batch; returns the names applied.
 *
 * Safe to run from several processes at once (a deploy on several hosts, a
 * retry): where the driver has transactions, each migration's transaction
 * takes SQLite's write lock first (`BEGIN IMMEDIATE`; a runner that finds it
 * taken waits, past the busy timeout too) and reads again, under the lock,
 * whether the migration was applied meanwhile. When it was, another runner is
 * migrating: this one stops there and leaves the rest to it (it returns what
 * it applied itself, often nothing), instead of failing on
 * `table ... already exists`. The batch number is read under the same lock.
 */
export async function migrate(db: Database, migrations: Migration[], events: MigrationEvents = {}): Promise<string[]> {
  await waitingForTheLock(() => db.execute(CREATE_TABLE))
  const applied = new Set((await appliedMigrations(db)).map((row) => row.name))
  const pending = [...migrations].sort(byName).filter((m) => !applied.has(m.name))
  if (pending.length === 0) return []
  let batch: number | undefined
  const ran: string[] = []
  for (const [index, migration] of pending.entries()) {
    const started = () => events.onMigration?.({ name: migration.name, index, total: pending.length, done: false })
    let appliedMeanwhile = false
    try {
      if (db.interactiveTransactions) {
        await waitingForTheLock(() =>
          db.transaction(async (tx) => {
            if ((await tx.first('select 1 as applied from migrations where name = ?', [migration.name])) !== undefined) {
              appliedMeanwhile = true
              return
            }
            started()
            batch ??= (await lastBatch(tx)) + 1
            await migration.up(tx)
            await tx.execute('insert into migrations (name, batch, ran_at) values (?, ?, ?)', [migration.name, batch, new Date().toISOString()])
          }),
        )
      } else {
        started()
        batch ??= (await lastBatch(db)) + 1
        await atomically(db, (tx) => migration.up(tx), {
          sql: 'insert into migrations (name, batch, ran_at) values (?, ?, ?)',
          args: [migration.name, batch, new Date().toISOString()],
        })
      }
    } catch (error) {
      throw new MigrationError(migration.name, error)
    }
    if (appliedMeanwhile) break
    ran.push(migration.name)
    events.onMigration?.({ name: migration.name, index, total: pending.length, done: true })
  }
  return ran
}

/** How long a runner waits for another one's write lock (a long migration elsewhere) before it gives up. */
const LOCK_WAIT_MS = 10 * 60_000

/**
 * `write()`, again while it fails with SQLITE_BUSY (as the ServiceBusyError
 * the database makes of it): it waited the busy timeout for another
 * connection's write lock and got nothing done, so trying again is safe.
 */
async function waitingForTheLock<T>(write: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + LOCK_WAIT_MS
  for (;;) {
    try {
      return await write()
    } catch (error) {
      if (!(error instanceof ServiceBusyError) || Date.now() > deadline) throw error
    }
  }
}

/** Rolls back the last `steps` batches (default: the last one); returns the names rolled back. */
export async function rollback(db: Database, migrations: Migration[], steps = 1): Promise<string[]> {
  // Nothing ever ran: nothing to roll back, and nothing written (no migrations table made).
  if (!(await hasTable(db, 'migrations'))) return []
  const byMigrationName = new Map(migrations.map((m) => [m.name, m]))
  const top = await lastBatch(db)
  const applied = (await appliedMigrations(db))
    .filter((row) => row.batch !== null && row.batch > top - steps)
    .sort((a, b) => b.name.localeCompare(a.name))
  // Checked before anything is rolled back: a batch is undone whole or not at all, never up to a missing file.
  for (const row of applied) {
    const migration = byMigrationName.get(row.name)
    if (migration === undefined) throw new MigrationError(row.name, new Error('its file is missing'), 'missing_file')
    if (migration.down === undefined) throw new MigrationError(row.name, new Error('it has no down()'), 'no_down')
  }
  const rolledBack: string[] = []
  for (const row of applied) {
    const migration = byMigrationName.get(row.name)!
    try {
      await atomically(db, (tx) => migration.down!(tx), { sql: 'delete from migrations where name = ?', args: [row.name] })
    } catch (error) {
      throw new MigrationError(row.name, error, 'down')
    }
    rolledBack.push(row.name)
  }
  return rolledBack
}

/**
 * Drops every view and table (their indexes and triggers go with them), then migrates from scratch. Views
 * first: one left behind made the migration that creates it fail with `view ... already exists`.
 */
export async function migrateFresh(db: Database, migrations: Migration[], events: MigrationEvents = {}): Promise<string[]> {
  const objects = await db.execute(
    "select type, name from sqlite_master where type in ('view', 'table') and name not like 'sqlite_%' and name not like '_litestream%' order by type = 'table'",
  )
  await db.execute('pragma foreign_keys = off')
  for (const row of objects.rows) await db.execute(`drop ${row.type === 'view' ? 'view' : 'table'} if exists "${String(row.name).replaceAll('"', '""')}"`)
  await db.execute('pragma foreign_keys = on')
  return migrate(db, migrations, events)
}

/** `work`'s writes and `last` together, or none of them (see the module doc). */
async function atomically(db: Database, work: (tx: Database) => Promise<void>, last: { sql: string; args: Array<string | number> }): Promise<void> {
  if (db.interactiveTransactions) {
    await db.transaction(async (tx) => {
      await work(tx)
      await tx.execute(last.sql, last.args)
    })
    return
  }
  const collected = collectWrites(db)
  await work(collected.db)
  await db.batch([...collected.statements, last])
}

async function appliedMigrations(db: Database): Promise<MigrationStatus[]> {
  const result = await db.execute('select name, batch, ran_at from migrations order by name')
  return result.rows.map((row) => ({ name: String(row.name), batch: Number(row.batch), ran_at: String(row.ran_at) }))
}

async function lastBatch(db: Database): Promise<number> {
  const result = await db.execute('select coalesce(max(batch), 0) as batch from migrations')
  return Number(result.rows[0]?.batch ?? 0)
}

function byName(a: Migration, b: Migration): number {
  return a.name.localeCompare(b.name)
}
