/** What `db:show` reads from SQLite's catalogue: the tables, and one table's columns, indexes, keys and size. */
import type { Database } from '../../framework/index.ts'
import type { DbTableJson, DbTablesJson } from '../contract/index.ts'
import { quoteIdentifier } from './open.ts'

interface CatalogueRow {
  name: string
  sql: string | null
}

/** Every table (SQLite's own `sqlite_*` left out) with its row count, by name. */
export async function listTables(db: Database): Promise<DbTablesJson['tables']> {
  const tables = await db.all<CatalogueRow>("select name, sql from sqlite_master where type = 'table' and name not like 'sqlite\\_%' escape '\\' order by name")
  const tablesWithRows: DbTablesJson['tables'] = []
  for (const { name } of tables) tablesWithRows.push({ name, rows: await countRows(db, name) })
  return tablesWithRows
}

/** The table's name as stored (SQLite compares names case-insensitively), or undefined. */
export async function findTable(db: Database, name: string): Promise<string | undefined> {
  const row = await db.first<CatalogueRow>("select name, sql from sqlite_master where type = 'table' and name = ? collate nocase", [name])
  return row?.name
}

export async function describeTable(db: Database, table: string): Promise<DbTableJson> {
  const columns = await db.all<{ name: string; type: string; notnull: number; dflt_value: string | null; pk: number; hidden: number }>(
    'select name, type, "notnull", dflt_value, pk, hidden from pragma_table_xinfo(?) order by cid',
    [table],
  )
  const primaryKey = columns.filter((column) => column.pk > 0)
  // A single INTEGER PRIMARY KEY is the rowid: never null, whatever the declaration says.
  const rowid = primaryKey.length === 1 && primaryKey[0]!.type.toUpperCase() === 'INTEGER' ? primaryKey[0]!.name : undefined

  const indexList = await db.all<{ name: string; unique: number; origin: string; partial: number }>(
    'select name, "unique", origin, partial from pragma_index_list(?) order by name',
    [table],
  )
  const indexes: DbTableJson['indexes'] = []
  for (const index of indexList) {
    const indexColumns = await db.all<{ name: string | null }>('select name from pragma_index_info(?) order by seqno', [index.name])
    indexes.push({
      name: index.name,
      columns: indexColumns.map((column) => column.name ?? '(expression)'),
      unique: index.unique === 1,
      origin: index.origin === 'pk' ? 'primary_key' : index.origin === 'u' ? 'unique' : 'index',
      partial: index.partial === 1,
    })
  }

  const keyRows = await db.all<{ id: number; table: string; from: string; to: string | null; on_update: string; on_delete: string }>(
    'select id, "table", "from", "to", on_update, on_delete from pragma_foreign_key_list(?) order by id, seq',
    [table],
  )
  const foreignKeys = new Map<number, DbTableJson['foreign_keys'][number]>()
  for (const row of keyRows) {
    let key = foreignKeys.get(row.id)
    if (key === undefined) foreignKeys.set(row.id, (key = { columns: [], table: row.table, references: [], on_update: row.on_update, on_delete: row.on_delete }))
    key.columns.push(row.from)
    // `references users` without columns means the other table's primary key.
    key.references.push(row.to ?? '(primary key)')
  }

  return {
    table,
    columns: columns.map((column) => ({
      name: column.name,
      type: column.type,
      nullable: column.notnull === 0 && column.name !== rowid,
      default: column.dflt_value,
      primary_key: column.pk > 0,
      generated: column.hidden === 2 || column.hidden === 3,
    })),
    indexes,
    foreign_keys: [...foreignKeys.values()],
    rows: await countRows(db, table),
    schema: await createStatements(db, table),
  }
}

/** The table's CREATE statement, then its indexes' and triggers' (those SQLite makes itself have none). */
async function createStatements(db: Database, table: string): Promise<string> {
  const rows = await db.all<CatalogueRow>(
    "select name, sql from sqlite_master where tbl_name = ? and sql is not null order by case type when 'table' then 0 when 'index' then 1 else 2 end, name",
    [table],
  )
  return rows.map((row) => `${row.sql};`).join('\n')
}

async function countRows(db: Database, table: string): Promise<number> {
  const row = await db.first<{ rows: number }>(`select count(*) as rows from ${quoteIdentifier(table)}`)
  return Number(row?.rows ?? 0)
}
