/**
 * A table a command names (db:show, db:why) checked against the database:
 * an unknown name is E_NO_TABLE with the closest names, or every table, so a
 * typo is never answered as an empty table or a row nothing touched.
 */
import type { Database } from '../../framework/index.ts'
import { closestNames } from '../command/suggest.ts'
import { CliError } from '../output/cli-error.ts'
import { findTable, listTables } from './inspect.ts'

/** The table's name as stored; E_NO_TABLE when the database has none by that name. */
export async function knownTable(db: Database, name: string): Promise<string> {
  const table = await findTable(db, name)
  if (table !== undefined) return table
  const names = (await listTables(db)).map((known) => known.name)
  const suggestions = closestNames(name, names)
  throw new CliError('E_NO_TABLE', `No table ${name} in the database`, {
    hint: suggestions.length > 0 ? `did you mean ${suggestions.join(', ')}? (svc db:show lists the tables)` : names.length > 0 ? `tables: ${names.join(', ')}` : 'the database has no tables yet: svc migrate',
  })
}

/** E_NO_COLUMN when `table` has no column `name` (SQLite compares names case-insensitively); the columns in the fix. */
export async function knownColumn(db: Database, table: string, name: string): Promise<void> {
  const columns = (await db.all<{ name: string }>('select name from pragma_table_xinfo(?) order by cid', [table])).map((column) => column.name)
  if (columns.some((column) => column.toLowerCase() === name.toLowerCase())) return
  const suggestions = closestNames(name, columns)
  throw new CliError('E_NO_COLUMN', `No column ${name} in the table ${table}`, {
    hint: `${suggestions.length > 0 ? `did you mean ${suggestions.join(', ')}? ` : ''}columns of ${table}: ${columns.join(', ')}`,
  })
}
