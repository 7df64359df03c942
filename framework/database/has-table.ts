/**
 * Whether the database has a table. Read-only paths (a status, a list) ask
 * this instead of running `create table if not exists`, which is a write:
 * it fails on a read-only file, waits on another process's write lock, and is
 * refused by a `libsql://` read replica.
 */
import type { Database } from './database.ts'

export async function hasTable(db: Database, table: string): Promise<boolean> {
  return (await db.first("select 1 from sqlite_master where type = 'table' and name = ?", [table])) !== undefined
}
