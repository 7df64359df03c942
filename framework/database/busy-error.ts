/**
 * The driver's "database is locked" (another connection held SQLite's write
 * lock past the busy timeout) as what it is to a client: load, a 503 with
 * `Retry-After` (ServiceBusyError), not a 500. A database server out of reach
 * is a 503 too (DatabaseUnreachableError): nothing the client sent is wrong.
 */
import { DatabaseUnreachableError, ServiceBusyError } from '../http/service-busy.ts'

export function isSqliteBusy(error: unknown): error is Error {
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY')
}

/**
 * A database server the client cannot reach: @libsql/client over HTTP fails with undici's
 * `TypeError: fetch failed` (refused, no such host, reset), over WebSocket with HRANA_WEBSOCKET_ERROR.
 */
export function isUnreachable(error: unknown): error is Error {
  if (error instanceof TypeError) return error.message === 'fetch failed'
  return error instanceof Error && (error as { code?: unknown }).code === 'HRANA_WEBSOCKET_ERROR'
}

/** SQLITE_BUSY as a ServiceBusyError, a server out of reach as a DatabaseUnreachableError (the driver's error as their cause); anything else as it is. */
export function asBusyError(error: unknown, waitedMs: number): unknown {
  if (isSqliteBusy(error)) return new ServiceBusyError(waitedMs / 1000, error)
  return isUnreachable(error) ? new DatabaseUnreachableError(error) : error
}
