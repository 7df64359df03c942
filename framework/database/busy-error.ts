/**
 * A write that could not get the database in time: this process's own queue
 * of writes (the write gate) or another process's lock (SQLITE_BUSY after the
 * busy timeout). It is load, not a bug, so the client is told to come back:
 * 503 with `Retry-After`, never a 500. What happened in detail stays in
 * `cause` (logs and traces), not in the answer.
 */
import { HttpError } from '../http/http-error.ts'

export class DatabaseBusyError extends HttpError {
  constructor(cause: Error, retryAfterSeconds = 1) {
    super(503, 'The service is busy; try again in a moment.', {
      headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
      cause,
    })
    this.name = 'DatabaseBusyError'
  }
}

/** True for the driver's "database is locked" error (another connection held the lock past the busy timeout). */
export function isSqliteBusy(error: unknown): error is Error {
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY')
}

/** Rethrows SQLITE_BUSY as a DatabaseBusyError; anything else as it is. */
export function asBusyError(error: unknown, waitedMs: number): unknown {
  return isSqliteBusy(error) ? new DatabaseBusyError(error, waitedMs / 1000) : error
}
