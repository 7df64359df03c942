/**
 * 503 with `Retry-After`: the service is short of something that frees up
 * soon (a turn to write to the database, a password-hashing slot). It is
 * load, not a bug, so the client is told when to come back and never gets a
 * 500. What ran out, in detail, stays in `cause` (logs and traces), not in
 * the answer.
 */
import { HttpError } from './http-error.ts'

export const SERVICE_BUSY_MESSAGE = 'The service is busy; try again in a moment.'

export class ServiceBusyError extends HttpError {
  constructor(retryAfterSeconds: number, cause?: unknown) {
    super(503, SERVICE_BUSY_MESSAGE, {
      headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
      cause,
    })
    this.name = 'ServiceBusyError'
  }
}

export const DATABASE_UNREACHABLE_MESSAGE = 'The database cannot be reached; try again in a moment.'

/** 503: a database server (`libsql://`, `http://`) out of reach. The network error stays in `cause`. */
export class DatabaseUnreachableError extends HttpError {
  constructor(cause?: unknown) {
    super(503, DATABASE_UNREACHABLE_MESSAGE, { headers: { 'Retry-After': '5' }, cause })
    this.name = 'DatabaseUnreachableError'
  }
}
