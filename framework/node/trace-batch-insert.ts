/**
 * The trace writers' batch insert on Node: prepared once, on a libsql
 * connection of its own (`libsql`, the driver beneath `@libsql/client`).
 * Through the client, each insert was prepared again, its arguments and
 * result converted and its connection borrowed from a pool: about 390 us a
 * batch against 260, all of it a stall of the thread that answers requests
 * (docs/benchmarks.md, "Nineteenth pass").
 */
import Libsql from 'libsql'
import { INSERT_BATCH_SQL, type PreparedBatchInsert } from '../trace/store.ts'

export interface TraceBatchInsertOptions {
  /** The store's file (created, with its tables, by the client's connection first). */
  path: string
  /** How long an insert waits for another connection's lock, as the client's connection does. */
  busyTimeoutMs: number
  /** As the client's connection (`OpenTraceStoreOptions.walAutocheckpoint`). */
  walAutocheckpoint?: number
}

/**
 * The insert, opened and prepared at its first run: by then the store's
 * `init` has created the table it names.
 */
export function traceBatchInsert(options: TraceBatchInsertOptions): PreparedBatchInsert {
  let connection: { db: Libsql.Database; insert: Libsql.Statement<unknown[]> } | undefined
  let closed = false
  const open = () => {
    const db = new Libsql(options.path, { timeout: options.busyTimeoutMs })
    try {
      // Per connection, as `openLibsqlTraceStore` sets them on the client's.
      db.exec('pragma synchronous = normal')
      if (options.walAutocheckpoint !== undefined) db.exec(`pragma wal_autocheckpoint = ${Math.trunc(options.walAutocheckpoint)}`)
      return { db, insert: db.prepare(INSERT_BATCH_SQL) }
    } catch (error) {
      db.close()
      throw error
    }
  }
  return {
    run(batch) {
      // Not opened again: a connection opened after close would never be closed.
      if (closed) throw new Error('the trace store was closed')
      connection ??= open()
      connection.insert.run(batch.first_at, batch.last_at, batch.count, batch.data)
    },
    close() {
      closed = true
      connection?.db.close()
      connection = undefined
    },
  }
}
