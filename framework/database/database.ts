/**
 * The one module every query goes through. Wraps a libSQL client (local file,
 * `libsql://` server, or the web client in a fetch runtime) or another driver
 * (Cloudflare D1, `svc/workers`) so that timing and tracing hook in at a
 * single place: `withObserver` gives a request-scoped handle that reports
 * every statement it runs.
 */
import type { Client, InArgs, ResultSet } from '@libsql/client'
import { asBusyError } from './busy-error.ts'
import { isDatabaseDriver, libsqlDriver, type DatabaseDriver, type DriverTransaction, type SqlStatement } from './driver.ts'
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
  /**
   * Runs the statements atomically: all of them or none, in order, in one
   * round trip where the driver can. The one multi-statement write every
   * driver has (libSQL: a write transaction; D1: `batch()`); a statement may
   * use what an earlier one wrote (`insert ... select`, a subquery).
   * @example await db.batch([{ sql: 'insert into a (x) values (?)', args: [1] }, 'update b set n = n + 1'])
   */
  batch(statements: Statement[]): Promise<ResultSet[]>
  /**
   * Runs `work` in a write transaction; commits if it resolves, rolls back if
   * it throws. Only where the driver has interactive transactions
   * (`interactiveTransactions`; libSQL yes, D1 no: a `NoTransactionsError`).
   * Prefer `batch()`, which runs everywhere.
   */
  transaction<T>(work: (tx: Database) => Promise<T>): Promise<T>
  /** Whether `transaction()` is available (false on D1). */
  readonly interactiveTransactions: boolean
  /** The driver's name: `libsql`, `d1`. */
  readonly driver: string
  /** The same database, reporting every statement to `observer`. */
  withObserver(observer: QueryObserver): Database
  close(): void
}

type Executor = DatabaseDriver | DriverTransaction

/** `transaction()` on a driver without interactive transactions (D1 refuses `BEGIN`). */
export class NoTransactionsError extends Error {
  readonly code = 'E_NO_TRANSACTIONS'
  constructor(driver: string) {
    super(
      `The ${driver} database has no interactive transactions: write the statements as one db.batch([...]), ` +
        'which every driver runs atomically (docs/database.md, "Transactions and batches")',
    )
    this.name = 'NoTransactionsError'
  }
}

export interface DatabaseOptions {
  /** How long a write waits for this process's open transaction before failing (see WriteGate); default 5000. */
  lockWaitMs?: number
}

const gates = new WeakMap<DatabaseDriver, WriteGate>()

/**
 * The app's database over a libSQL client or a driver (`d1Database` from
 * `svc/workers` makes one of a D1 binding).
 * @example const db = createDatabase(createClient({ url: 'file:storage/database.sqlite' }))
 */
export function createDatabase(source: Client | DatabaseDriver, options: DatabaseOptions = {}): Database {
  const driver = isDatabaseDriver(source) ? source : libsqlDriver(source)
  gates.set(driver, new WriteGate(options.lockWaitMs ?? 5000))
  return new ObservedDatabase(driver, driver, undefined)
}

class ObservedDatabase implements Database {
  constructor(
    private readonly client: DatabaseDriver,
    private readonly executor: Executor,
    private readonly observer: QueryObserver | undefined,
  ) {}

  get interactiveTransactions(): boolean {
    return this.client.transaction !== undefined
  }

  get driver(): string {
    return this.client.name
  }

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

  private async runBatch(stmts: SqlStatement[]): Promise<ResultSet[]> {
    const started = performance.now()
    try {
      const results = await this.executor.batch(stmts)
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
    const begin = this.client.transaction?.bind(this.client)
    if (begin === undefined) throw new NoTransactionsError(this.client.name)
    return this.gate.exclusive(async () => {
      let tx: DriverTransaction
      try {
        tx = await begin()
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

function toStatement(statement: Statement, args?: InArgs): SqlStatement {
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

/**
 * Runs `attempt` (reads, then one batch built from what they found) so that
 * no other write lands between its reads and its batch: inside a write
 * transaction where the driver has them (libSQL); elsewhere (D1)
 * optimistically, again while `conflict(error)` says another writer came
 * first (the batch then wrote nothing), at most `tries` times.
 */
export async function readThenWrite<T>(
  db: Database,
  attempt: (db: Database) => Promise<T>,
  conflict: (error: unknown) => boolean,
  tries = 8,
): Promise<T> {
  if (db.interactiveTransactions) return db.transaction(attempt)
  for (let tried = 1; ; tried++) {
    try {
      return await attempt(db)
    } catch (error) {
      if (tried >= tries || !conflict(error)) throw error
    }
  }
}
