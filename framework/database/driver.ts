/**
 * What `createDatabase` needs of a database engine: run a statement, run a
 * list of statements atomically (`batch`), and, where the engine has them,
 * interactive transactions. libSQL (a local file, a server, the web client)
 * has all three; Cloudflare D1 has no interactive transaction (it refuses
 * `BEGIN`), only an atomic `batch()`. So the framework's own multi-statement
 * writes are batches, which every engine runs all-or-nothing.
 */
import type { Client, InArgs, ResultSet, Transaction } from '@libsql/client'

export interface SqlStatement {
  sql: string
  args?: InArgs
}

export interface DriverTransaction {
  execute(statement: SqlStatement): Promise<ResultSet>
  batch(statements: SqlStatement[]): Promise<ResultSet[]>
  commit(): Promise<void>
  rollback(): Promise<void>
  close(): void
  readonly closed: boolean
}

export interface DatabaseDriver {
  /** `libsql`, `d1`: named in errors and health details. */
  readonly name: string
  execute(statement: SqlStatement): Promise<ResultSet>
  /** All or none of the statements, in order (one transaction). */
  batch(statements: SqlStatement[]): Promise<ResultSet[]>
  /** A write transaction the caller drives; absent where the engine has none (D1). */
  transaction?(): Promise<DriverTransaction>
  close(): void
}

/** A libSQL client as a driver: `batch` is its write-mode batch (one transaction). */
export function libsqlDriver(client: Client): DatabaseDriver {
  return {
    name: 'libsql',
    execute: (statement) => client.execute(statement),
    batch: (statements) => client.batch(statements, 'write').catch(codeSaidOnce),
    transaction: async () => wrapTransaction(await client.transaction('write')),
    close: () => client.close(),
  }
}

function wrapTransaction(tx: Transaction): DriverTransaction {
  return {
    execute: (statement) => tx.execute(statement),
    batch: (statements) => tx.batch(statements).catch(codeSaidOnce),
    commit: () => tx.commit(),
    rollback: () => tx.rollback(),
    close: () => tx.close(),
    get closed() {
      return tx.closed
    },
  }
}

/**
 * libSQL's `LibsqlBatchError` puts its code in front of a message that already
 * starts with it (`SQLITE_CONSTRAINT: SQLITE_CONSTRAINT: UNIQUE constraint
 * failed: posts.slug`), which reached 500 log lines, seeder and migration
 * errors as it was. The code is said once, as `execute`'s errors say it; the
 * error itself (its class, `code`, `statementIndex`) is kept.
 */
function codeSaidOnce(error: unknown): never {
  const code = (error as { code?: unknown } | null)?.code
  if (error instanceof Error && typeof code === 'string' && error.message.startsWith(`${code}: ${code}: `)) {
    error.message = error.message.slice(code.length + 2)
  }
  throw error
}

/** True for a driver, false for a libSQL `Client` (which has no `name`). */
export function isDatabaseDriver(value: Client | DatabaseDriver): value is DatabaseDriver {
  return typeof (value as { name?: unknown }).name === 'string' && typeof (value as { protocol?: unknown }).protocol !== 'string'
}
