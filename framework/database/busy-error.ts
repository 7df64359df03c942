/**
 * The driver's "database is locked" (another connection held SQLite's write
 * lock past the busy timeout) as what it is to a client: load, a 503 with
 * `Retry-After` (ServiceBusyError), not a 500.
 */
import { ServiceBusyError } from '../http/service-busy.ts'

export function isSqliteBusy(error: unknown): error is Error {
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY')
}

/** SQLITE_BUSY as a ServiceBusyError (the driver's error as its cause); anything else as it is. */
export function asBusyError(error: unknown, waitedMs: number): unknown {
  return isSqliteBusy(error) ? new ServiceBusyError(waitedMs / 1000, error) : error
}
