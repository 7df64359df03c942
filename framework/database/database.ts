/**
 * The one module every query goes through. Wraps a libSQL client (local file,
 * `libsql://` server, or the web client in a fetch runtime) so that timing and
 * tracing hook in at a single place: `withObserver` gives a request-scoped
 * handle that reports every statement it runs.
 */
import type { Client, InArgs, InStatement, ResultSet, Transaction } from '@libsql/client'
import { asBusyError } from './busy-error.ts'
import { isReadOnly, WriteGate } from './write-gate.ts'

export type { ResultSet } from '@libsql/client'
export type Statement = string | { sql: string; args?: InArgs }

export interface QueryRecord {
  sql: string
  args: InArgs | undefined
  /** performance.now() when the statement was sent (the trace turns it into an offset in the request). */
  startedAt: number
  duration_ms: number
  rows: number
  /** The rowid an insert created (traces use it to find the statements that touched a row). */
  lastInsertRowid?: number
  error?: string
}

export type QueryObserver = (query: QueryRecord) => void

export interface Database {
  /** @example await db.execute('select * from posts where id = ?', [id]) */
  execute(statement: Statement, args?: InArgs): Promise<ResultSet>
  /**
   * The rows, typed as `Row` (the type is a promise to the compiler, not checked at run time).
   * @example const posts = await db.all<Post>('select * from posts order by id desc')
   */
  all<Row = Record<string, unknown>>(statement: Statement, args?: InArgs): Promise<Row[]>
  /**
   * The first row, or undefined when there is none.
   * @example const post = await db.first<Post>('select * from posts where id = ?', [id])
   */
  first<Row = Record<string, unknown>>(statement: Statement, args?: InArgs): Promise<Row | undefined>
  /** Runs the statements atomically, in one round trip where the driver can. */
  batch(statements: Statement[]): Promise<ResultSet[]>
  /** Runs `work` in a write transaction; commits if it resolves, rolls back if it throws. */
  transaction<T>(work: (tx: Database) => Promise<T>): Promise<T>
  /** The same database, reporting every statement to `observer`. */
  withObserver(observer: QueryObserver): Database
  close(): void
}

type Executor = Pick<Client, 'execute' | 'batch'> | Transaction

export interface DatabaseOptions {
  /** How long a write waits for this process's open transaction before failing (see WriteGate); default 5000. */
  lockWaitMs?: number
}

const gates = new WeakMap<Client, WriteGate>()

export function createDatabase(client: Client, options: DatabaseOptions = {}): Database {
  gates.set(client, new WriteGate(options.lockWaitMs ?? 5000))
  return new ObservedDatabase(client, client, undefined)
}

class ObservedDatabase implements Database {
  constructor(
    private readonly client: Client,
    private readonly executor: Executor,
    private readonly observer: QueryObserver | undefined,
  ) {}

  execute(statement: Statement, args?: InArgs): Promise<ResultSet> {
    const stmt = toStatement(statement, args)
    // Inside a transaction, `transaction()` maps a busy lock; reads never wait for one.
    if (this.executor !== this.client || isReadOnly(stmt.sql)) return this.observe(stmt, () => this.executor.execute(stmt))
    const write = () => this.observe(stmt, () => this.executor.execute(stmt)).catch((error: unknown) => {
      throw asBusyError(error, this.gate.waitMs)
    })
    // A write outside a transaction takes its turn behind the open or queued ones.
    return this.gate.busy ? this.gate.exclusive(write) : write()
  }

  async all<Row = Record<string, unknown>>(statement: Statement, args?: InArgs): Promise<Row[]> {
    return (await this.execute(statement, args)).rows as unknown as Row[]
  }

  async first<Row = Record<string, unknown>>(statement: Statement, args?: InArgs): Promise<Row | undefined> {
    return (await this.execute(statement, args)).rows[0] as Row | undefined
  }

  batch(statements: Statement[]): Promise<ResultSet[]> {
    const stmts = statements.map((statement) => toStatement(statement))
    if (this.executor === this.client && this.gate.busy) return this.gate.exclusive(() => this.runBatch(stmts))
    return this.runBatch(stmts)
  }

  private async runBatch(stmts: Array<{ sql: string; args?: InArgs } & InStatement>): Promise<ResultSet[]> {
    const started = performance.now()
    try {
      const results =
        this.executor === this.client ? await this.client.batch(stmts, 'write') : await (this.executor as Transaction).batch(stmts)
      const each = (performance.now() - started) / Math.max(1, stmts.length)
      stmts.forEach((stmt, i) => this.report(stmt, started + i * each, each, results[i]?.rows.length ?? 0, undefined, results[i]))
      return results
    } catch (error) {
      this.report(stmts[0] ?? { sql: '' }, started, performance.now() - started, 0, error)
      throw asBusyError(error, this.gate.waitMs)
    }
  }

  async transaction<T>(work: (tx: Database) => Promise<T>): Promise<T> {
    // Already inside one: SQLite has no nested transactions, the outer one covers the work.
    if (this.executor !== this.client) return work(this)
    return this.gate.exclusive(async () => {
      let tx: Transaction
      try {
        tx = await this.client.transaction('write')
      } catch (error) {
        throw asBusyError(error, this.gate.waitMs)
      }
      try {
        const result = await work(new ObservedDatabase(this.client, tx, this.observer))
        await tx.commit()
        return result
      } catch (error) {
        if (!tx.closed) await tx.rollback().catch(() => {})
        throw asBusyError(error, this.gate.waitMs)
      } finally {
        tx.close()
      }
    })
  }

  withObserver(observer: QueryObserver): Database {
    return new ObservedDatabase(this.client, this.executor, observer)
  }

  close(): void {
    this.client.close()
  }

  private get gate(): WriteGate {
    let gate = gates.get(this.client)
    if (gate === undefined) gates.set(this.client, (gate = new WriteGate(5000)))
    return gate
  }

  private async observe(stmt: { sql: string; args?: InArgs }, run: () => Promise<ResultSet>): Promise<ResultSet> {
    if (this.observer === undefined) return run()
    const started = performance.now()
    try {
      const result = await run()
      this.report(stmt, started, performance.now() - started, result.rows.length, undefined, result)
      return result
    } catch (error) {
      this.report(stmt, started, performance.now() - started, 0, error)
      throw error
    }
  }

  private report(stmt: { sql: string; args?: InArgs }, startedAt: number, duration: number, rows: number, error?: unknown, result?: ResultSet): void {
    if (this.observer === undefined) return
    const record: QueryRecord = { sql: stmt.sql, args: stmt.args, startedAt, duration_ms: round(duration), rows }
    if (result !== undefined) {
      const rowid = insertedRowid(stmt.sql, result)
      if (rowid !== undefined) record.lastInsertRowid = rowid
    }
    if (error !== undefined) record.error = error instanceof Error ? error.message : String(error)
    this.observer(record)
  }
}

function toStatement(statement: Statement, args?: InArgs): { sql: string; args?: InArgs } & InStatement {
  if (typeof statement === 'string') return args === undefined ? { sql: statement } : { sql: statement, args }
  return args === undefined ? statement : { sql: statement.sql, args }
}

/** The rowid an insert created; with `returning` the driver reports none, so the returned `id` stands in. */
function insertedRowid(sql: string, result: ResultSet): number | undefined {
  if (!/^\s*(insert|replace)\b/i.test(sql)) return undefined
  if (result.lastInsertRowid !== undefined && result.rowsAffected > 0) return Number(result.lastInsertRowid)
  const column = result.columns.find((name) => name === 'id' || name === 'rowid')
  const value = column === undefined ? undefined : result.rows.at(-1)?.[column]
  return typeof value === 'number' || typeof value === 'bigint' ? Number(value) : undefined
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000
}
