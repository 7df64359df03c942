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

export class MigrationError extends Error {
  readonly migration: string
  constructor(migration: string, cause: unknown) {
    super(`Migration ${migration} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause })
    this.name = 'MigrationError'
    this.migration = migration
  }
}

const CREATE_TABLE = `create table if not exists migrations (
  id integer primary key autoincrement,
  name text not null unique,
  batch integer not null,
  ran_at text not null
)`

export async function migrationStatus(db: Database, migrations: Migration[]): Promise<MigrationStatus[]> {
  await db.execute(CREATE_TABLE)
  const applied = await appliedMigrations(db)
  const known = new Map(applied.map((row) => [row.name, row]))
  const names = new Set([...migrations.map((m) => m.name), ...applied.map((row) => row.name)])
  return [...names].sort().map((name) => known.get(name) ?? { name, batch: null, ran_at: null })
}

/** Told when each migration starts and ends (a command's progress display). */
export interface MigrationEvents {
  onMigration?(event: { name: string; index: number; total: number; done: boolean }): void
}

/** Applies every pending migration as one new batch; returns the names applied. */
export async function migrate(db: Database, migrations: Migration[], events: MigrationEvents = {}): Promise<string[]> {
  await db.execute(CREATE_TABLE)
  const applied = new Set((await appliedMigrations(db)).map((row) => row.name))
  const pending = [...migrations].sort(byName).filter((m) => !applied.has(m.name))
  if (pending.length === 0) return []
  const batch = (await lastBatch(db)) + 1
  const ran: string[] = []
  for (const [index, migration] of pending.entries()) {
    events.onMigration?.({ name: migration.name, index, total: pending.length, done: false })
    try {
      await atomically(db, (tx) => migration.up(tx), {
        sql: 'insert into migrations (name, batch, ran_at) values (?, ?, ?)',
        args: [migration.name, batch, new Date().toISOString()],
      })
    } catch (error) {
      throw new MigrationError(migration.name, error)
    }
    ran.push(migration.name)
    events.onMigration?.({ name: migration.name, index, total: pending.length, done: true })
  }
  return ran
}

/** Rolls back the last `steps` batches (default: the last one); returns the names rolled back. */
export async function rollback(db: Database, migrations: Migration[], steps = 1): Promise<string[]> {
  await db.execute(CREATE_TABLE)
  const byMigrationName = new Map(migrations.map((m) => [m.name, m]))
  const top = await lastBatch(db)
  const applied = (await appliedMigrations(db))
    .filter((row) => row.batch !== null && row.batch > top - steps)
    .sort((a, b) => b.name.localeCompare(a.name))
  const rolledBack: string[] = []
  for (const row of applied) {
    const migration = byMigrationName.get(row.name)
    if (migration?.down === undefined) {
      throw new MigrationError(row.name, new Error(migration ? 'it has no down()' : 'its file is missing'))
    }
    try {
      await atomically(db, (tx) => migration.down!(tx), { sql: 'delete from migrations where name = ?', args: [row.name] })
    } catch (error) {
      throw new MigrationError(row.name, error)
    }
    rolledBack.push(row.name)
  }
  return rolledBack
}

/** Drops every table, then migrates from scratch. */
export async function migrateFresh(db: Database, migrations: Migration[], events: MigrationEvents = {}): Promise<string[]> {
  const tables = await db.execute(
    "select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like '_litestream%'",
  )
  await db.execute('pragma foreign_keys = off')
  for (const row of tables.rows) await db.execute(`drop table if exists "${String(row.name).replaceAll('"', '""')}"`)
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
