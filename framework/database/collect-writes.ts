/**
 * A handle that runs reads at once and keeps writes for later, so that code
 * written against `Database` (a migration's `up()`) can be applied as one
 * atomic batch on a driver without interactive transactions (D1). A kept
 * write answers an empty result: nothing it would return is known yet.
 */
import type { InArgs } from '@libsql/client'
import type { Database, ResultSet, Statement } from './database.ts'
import type { SqlStatement } from './driver.ts'
import { isReadOnly } from './write-gate.ts'

/** What answers now: a read (select), a query plan, or a pragma that reads (`pragma table_info(posts)`, not `pragma x = 1`). */
export function answersNow(sql: string): boolean {
  return isReadOnly(sql) || /^\s*explain\b/i.test(sql) || (/^\s*pragma\b/i.test(sql) && !sql.includes('='))
}

export interface CollectedWrites {
  db: Database
  /** The writes, in the order they were made. */
  statements: SqlStatement[]
}

export function collectWrites(target: Database): CollectedWrites {
  const statements: SqlStatement[] = []
  const keep = (statement: Statement, args?: InArgs): SqlStatement => {
    const stmt = typeof statement === 'string' ? { sql: statement, args } : { sql: statement.sql, args: args ?? statement.args }
    statements.push(stmt)
    return stmt
  }
  const db: Database = {
    async execute(statement, args) {
      const sql = typeof statement === 'string' ? statement : statement.sql
      // A migration that checks before it acts (a column's presence) must get the real answer, not an empty one.
      if (answersNow(sql)) return target.execute(statement, args)
      keep(statement, args)
      return emptyResult()
    },
    async all(statement, args) {
      return (await db.execute(statement, args)).rows as never
    },
    async first(statement, args) {
      return (await db.execute(statement, args)).rows[0] as never
    },
    async batch(list) {
      return list.map((statement) => (keep(statement), emptyResult()))
    },
    transaction: (work) => work(db),
    interactiveTransactions: false,
    driver: target.driver,
    withObserver: () => db,
    close: () => {},
  }
  return { db, statements }
}

function emptyResult(): ResultSet {
  return { columns: [], columnTypes: [], rows: [], rowsAffected: 0, lastInsertRowid: undefined, toJSON: () => ({}) }
}
