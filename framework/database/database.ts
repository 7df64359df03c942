/**
 * The one module every query goes through. Wraps a libSQL client (local file,
 * `libsql://` server, or the web client in a fetch runtime) or another driver
 * (Cloudflare D1, `svc/workers`) so that timing and tracing hook in at a
 * single place: `withObserver` gives a request-scoped handle that reports
 * every statement it runs.
 */
import type { Client, InArgs, ResultSet } from '@libsql/client'
import { asBusyError, isSqliteBusy } from './busy-error.ts'
import { isDatabaseDriver, libsqlDriver, type DatabaseDriver, type DriverTransaction, type SqlStatement } from './driver.ts'
import { refusedArgument } from './argument-check.ts'
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
  /** What the observer's `started` returned as the statement was sent (the tracer's call site). */
  caller?: unknown
}

export type QueryObserver = ((query: QueryRecord) => void) & {
  /** Called as a statement is sent, in the caller's own stack (before any await). */
  started?: (sql: string) => unknown
}

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
  /**
   * Opens a new client to replace one that met SQLITE_BUSY. A local libSQL
   * connection whose statement failed with SQLITE_BUSY never finalises it:
   * its next transaction cannot commit, and the BEGIN it leaves open holds
   * SQLite's write lock until the process exits, for every process on the
   * file (tursodatabase/libsql-client-ts#352). Closing that client releases
   * the lock, so the Node adapter passes this for `file:` databases.
   */
  reopen?: () => Promise<Client | DatabaseDriver>
}

/**
 * The app's database over a libSQL client or a driver (`d1Database` from
 * `svc/workers` makes one of a D1 binding).
 * @example const db = createDatabase(createClient({ url: 'file:storage/database.sqlite' }))
 */
export function createDatabase(source: Client | DatabaseDriver, options: DatabaseOptions = {}): Database {
  const reopen = options.reopen
  const connection = new Connection(toDriver(source), new WriteGate(options.lockWaitMs ?? 5000), reopen && (async () => toDriver(await reopen())))
  return new ObservedDatabase(connection, undefined, undefined)
}

function toDriver(source: Client | DatabaseDriver): DatabaseDriver {
  return isDatabaseDriver(source) ? source : libsqlDriver(source)
}

/**
 * The driver every handle of one database shares (`withObserver` makes new
 * handles, not new connections), its write gate, and its replacement after
 * SQLITE_BUSY (see `DatabaseOptions.reopen`).
 */
class Connection {
  /** Set while a replacement is being opened: statements wait for it instead of using the broken client. */
  replacing: Promise<void> | undefined

  constructor(
    public client: DatabaseDriver,
    readonly gate: WriteGate,
    private readonly reopen: (() => Promise<DatabaseDriver>) | undefined,
  ) {}

  /** The driver to run on now: the current one, or the replacement being opened. */
  ready(): DatabaseDriver | Promise<DatabaseDriver> {
    return this.replacing === undefined ? this.client : this.replacing.then(() => this.client)
  }

  /** After `error` from `used`: when it is SQLITE_BUSY, later statements run on a new client and the used one is closed. */
  recover(error: unknown, used: DatabaseDriver): void {
    if (this.reopen === undefined || used !== this.client || this.replacing !== undefined || !isSqliteBusy(error)) return
    this.replacing = this.reopen().then(
      (fresh) => {
        this.client = fresh
        this.replacing = undefined
        // Statements already sent on it (reads) finish or fail within the busy timeout; then it goes.
        const timer = setTimeout(() => used.close(), this.gate.waitMs)
        ;(timer as { unref?: () => void }).unref?.()
      },
      (reopenError: unknown) => {
        this.replacing = undefined
        console.error(`[svc database] could not reopen the database after SQLITE_BUSY: ${(reopenError as Error).message}`)
      },
    )
  }
}

class ObservedDatabase implements Database {
  /**
   * @param tx the open transaction this handle runs in (and the client it was opened on), or
   * undefined outside one.
   */
  constructor(
    private readonly connection: Connection,
    private readonly tx: { executor: DriverTransaction; client: DatabaseDriver } | undefined,
    private readonly observer: QueryObserver | undefined,
  ) {}

  get interactiveTransactions(): boolean {
    return this.connection.client.transaction !== undefined
  }

  get driver(): string {
    return this.connection.client.name
  }

  execute(statement: Statement, args?: InArgs): Promise<ResultSet> {
    const stmt = toStatement(statement, args)
    const caller = this.observer?.started?.(stmt.sql)
    const refused = refusedArgument(stmt.args, stmt.sql)
    if (refused !== undefined) return this.refuse(stmt, refused, caller)
    // Inside a transaction, `transaction()` maps a busy lock.
    if (this.tx !== undefined) return this.observe(stmt, () => this.tx!.executor.execute(stmt), caller)
    const run = () => this.onClient((client) => this.observe(stmt, () => client.execute(stmt), caller))
    // Reads never wait for the write gate (WAL readers are not blocked by the writer).
    if (isReadOnly(stmt.sql)) return run()
    // A write outside a transaction takes its turn behind the open or queued ones.
    return this.gate.busy ? this.gate.exclusive(run) : run()
  }

  async all<Row = Record<string, unknown>>(statement: Statement, args?: InArgs): Promise<Row[]> {
    return (await this.execute(statement, args)).rows as unknown as Row[]
  }

  async first<Row = Record<string, unknown>>(statement: Statement, args?: InArgs): Promise<Row | undefined> {
    return (await this.execute(statement, args)).rows[0] as Row | undefined
  }

  batch(statements: Statement[]): Promise<ResultSet[]> {
    const stmts = statements.map((statement) => toStatement(statement))
    const caller = this.observer?.started?.(stmts[0]?.sql ?? '')
    // One refused statement refuses the batch: it is all or nothing.
    for (const stmt of stmts) {
      const refused = refusedArgument(stmt.args, stmt.sql)
      if (refused !== undefined) return this.refuse(stmt, refused, caller)
    }
    if (this.tx !== undefined) return this.runBatch(stmts, (s) => this.tx!.executor.batch(s), caller)
    const run = () => this.onClient((client) => this.runBatch(stmts, (s) => client.batch(s), caller))
    return this.gate.busy ? this.gate.exclusive(run) : run()
  }

  private async runBatch(stmts: SqlStatement[], send: (stmts: SqlStatement[]) => Promise<ResultSet[]>, caller: unknown): Promise<ResultSet[]> {
    const started = performance.now()
    try {
      const results = await send(stmts)
      const each = (performance.now() - started) / Math.max(1, stmts.length)
      stmts.forEach((stmt, i) => this.report(stmt, started + i * each, each, results[i]?.rows.length ?? 0, undefined, results[i], caller))
      return results
    } catch (error) {
      this.report(stmts[0] ?? { sql: '' }, started, performance.now() - started, 0, error, undefined, caller)
      throw error
    }
  }

  async transaction<T>(work: (tx: Database) => Promise<T>): Promise<T> {
    // Already inside one: SQLite has no nested transactions, the outer one covers the work.
    if (this.tx !== undefined) return work(this)
    if (!this.interactiveTransactions) throw new NoTransactionsError(this.driver)
    return this.gate.exclusive(async () => {
      const client = await this.connection.ready()
      let tx: DriverTransaction
      try {
        tx = await client.transaction!()
      } catch (error) {
        this.connection.recover(error, client)
        throw asBusyError(error, this.gate.waitMs)
      }
      try {
        const result = await work(new ObservedDatabase(this.connection, { executor: tx, client }, this.observer))
        await tx.commit()
        return result
      } catch (error) {
        if (!tx.closed) await tx.rollback().catch(() => {})
        this.connection.recover(error, client)
        throw asBusyError(error, this.gate.waitMs)
      } finally {
        tx.close()
      }
    })
  }

  withObserver(observer: QueryObserver): Database {
    return new ObservedDatabase(this.connection, this.tx, observer)
  }

  close(): void {
    this.connection.client.close()
  }

  private get gate(): WriteGate {
    return this.connection.gate
  }

  /** Runs `work` on the connection's client outside a transaction; SQLITE_BUSY replaces the client and becomes a ServiceBusyError. */
  private onClient<T>(work: (client: DatabaseDriver) => Promise<T>): Promise<T> {
    const ready = this.connection.ready()
    return ready instanceof Promise ? ready.then((client) => this.attempt(client, work)) : this.attempt(ready, work)
  }

  private attempt<T>(client: DatabaseDriver, work: (client: DatabaseDriver) => Promise<T>): Promise<T> {
    return work(client).catch((error: unknown) => {
      this.connection.recover(error, client)
      throw asBusyError(error, this.gate.waitMs)
    })
  }

  /** A statement refused before it was sent: reported (a trace shows it with its error), then rejected. */
  private refuse(stmt: SqlStatement, error: Error, caller: unknown): Promise<never> {
    this.report(stmt, performance.now(), 0, 0, error, undefined, caller)
    return Promise.reject(error)
  }

  private async observe(stmt: { sql: string; args?: InArgs }, run: () => Promise<ResultSet>, caller: unknown): Promise<ResultSet> {
    if (this.observer === undefined) return run()
    const started = performance.now()
    try {
      const result = await run()
      this.report(stmt, started, performance.now() - started, result.rows.length, undefined, result, caller)
      return result
    } catch (error) {
      this.report(stmt, started, performance.now() - started, 0, error, undefined, caller)
      throw error
    }
  }

  private report(stmt: { sql: string; args?: InArgs }, startedAt: number, duration: number, rows: number, error?: unknown, result?: ResultSet, caller?: unknown): void {
    if (this.observer === undefined) return
    const record: QueryRecord = { sql: stmt.sql, args: stmt.args, startedAt, duration_ms: round(duration), rows }
    if (caller !== undefined) record.caller = caller
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
