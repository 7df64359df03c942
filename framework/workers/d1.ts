/**
 * Cloudflare D1 behind svc's `Database`: statements with `prepare().bind()`,
 * atomic writes with D1's `batch()` (D1 refuses `BEGIN`, so `transaction()`
 * is a `NoTransactionsError`; svc's own multi-statement writes are batches).
 * Rows come back shaped as libSQL's (by name and by index), integers as
 * numbers, so app code reads them the same on every driver.
 *
 * @example
 * const database = d1Database(env.DB)
 */
import type { InArgs, InValue, ResultSet, Row } from '@libsql/client'
import { createDatabase, type Database, type DatabaseOptions } from '../database/database.ts'
import type { DatabaseDriver, SqlStatement } from '../database/driver.ts'

/** The part of a D1 binding (`D1Database`) svc uses. */
export interface D1DatabaseBinding {
  prepare(query: string): D1PreparedStatementBinding
  batch(statements: D1PreparedStatementBinding[]): Promise<D1ResultBinding[]>
}

export interface D1PreparedStatementBinding {
  bind(...values: unknown[]): D1PreparedStatementBinding
  all(): Promise<D1ResultBinding>
}

export interface D1ResultBinding {
  results?: Record<string, unknown>[]
  meta?: { changes?: number; last_row_id?: number }
}

/** The app's database on a D1 binding. */
export function d1Database(binding: D1DatabaseBinding, options: DatabaseOptions = {}): Database {
  return createDatabase(d1Driver(binding), options)
}

export function d1Driver(binding: D1DatabaseBinding): DatabaseDriver {
  refuseNonBinding(binding)
  const prepare = (statement: SqlStatement) => binding.prepare(statement.sql).bind(...positional(statement.args))
  return {
    name: 'd1',
    execute: async (statement) => resultSet(await prepare(statement).all()),
    batch: async (statements) => (statements.length === 0 ? [] : (await binding.batch(statements.map(prepare))).map(resultSet)),
    close: () => {},
  }
}

/**
 * A binding wrangler.toml does not declare (or declares under another name) is `undefined` in `env`: said
 * here, when the app is built, rather than as `Cannot read properties of undefined (reading 'prepare')` at
 * its first query.
 */
function refuseNonBinding(binding: unknown): void {
  const candidate = binding as Partial<D1DatabaseBinding> | null | undefined
  if (typeof candidate?.prepare === 'function' && typeof candidate.batch === 'function') return
  const what = binding === undefined ? 'undefined' : binding === null ? 'null' : `a ${typeof binding}`
  throw new TypeError(
    `d1Database: the binding is ${what}, not a D1 database: declare it in wrangler.toml ([[d1_databases]] with binding = the name the entry reads, as env.DB) and give Miniflare the same name`,
  )
}

/** D1 binds positional values only, and no `undefined`, bigint, boolean or Date. */
function positional(args: InArgs | undefined): unknown[] {
  if (args === undefined) return []
  if (!Array.isArray(args)) throw new TypeError('D1 takes positional arguments (?, ?1): named arguments are not supported')
  return args.map(toD1Value)
}

function toD1Value(value: InValue | undefined): unknown {
  if (value === undefined || value === null) return null
  if (typeof value === 'bigint') return Number(value)
  if (typeof value === 'boolean') return value ? 1 : 0
  if (value instanceof Date) return value.getTime()
  return value
}

function resultSet(result: D1ResultBinding): ResultSet {
  const objects = result.results ?? []
  const columns = objects.length > 0 ? Object.keys(objects[0]!) : []
  const rows = objects.map((object) => toRow(object, columns))
  const changes = result.meta?.changes ?? 0
  const lastRowId = result.meta?.last_row_id
  return {
    columns,
    columnTypes: columns.map(() => ''),
    rows,
    rowsAffected: changes,
    lastInsertRowid: changes > 0 && typeof lastRowId === 'number' ? BigInt(lastRowId) : undefined,
    toJSON: () => ({ columns, rows: objects, rowsAffected: changes, lastInsertRowid: lastRowId ?? null }),
  }
}

/** A row as libSQL gives it: enumerable names, indices and length hidden. */
function toRow(object: Record<string, unknown>, columns: string[]): Row {
  const row: Record<string | number, unknown> = {}
  Object.defineProperty(row, 'length', { value: columns.length })
  columns.forEach((column, index) => {
    const value = object[column]
    Object.defineProperty(row, index, { value })
    Object.defineProperty(row, column, { value, enumerable: true, configurable: true, writable: true })
  })
  return row as unknown as Row
}
