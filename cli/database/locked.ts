/**
 * A command's words for a database another connection kept locked. The
 * framework turns SQLite's "database is locked" into a ServiceBusyError, whose
 * message is for an HTTP client ("The service is busy; try again in a
 * moment."); a command's user is the developer, who needs to know that
 * another connection held the lock, and which kinds of program hold one.
 */
// Not the framework's index: the error printer (cli/output/print.ts) loads this, and `svc --version` must stay light.
import { isHttpError } from '../../framework/http/http-error.ts'
import { DatabaseUnreachableError, ServiceBusyError } from '../../framework/http/service-busy.ts'

export const DATABASE_LOCKED_MESSAGE =
  'the database is locked: another connection (svc serve, a queue worker, another command) held its write lock past the busy timeout'

/** SQLite's write lock, held by another connection past the busy timeout (the database module's ServiceBusyError). */
export function isDatabaseLocked(error: unknown): boolean {
  return error instanceof ServiceBusyError
}

/** A database server (`libsql://`, `http(s)://`) out of reach: the database module's DatabaseUnreachableError. */
export function isDatabaseUnreachable(error: unknown): error is DatabaseUnreachableError {
  return error instanceof DatabaseUnreachableError
}

export const DATABASE_UNREACHABLE_FIX = 'check DATABASE_URL (and DATABASE_AUTH_TOKEN) and that the database server runs; svc doctor checks the connection'

/**
 * A command's words for a server out of reach: the HTTP client's "try again in a moment" is for a client
 * that can do nothing else; the developer needs what the network said (refused, no such host) and which
 * setting names the server.
 */
export function unreachableMessage(error: DatabaseUnreachableError): string {
  let cause: unknown = error.cause
  // undici's `fetch failed` says what failed in its own cause (connect ECONNREFUSED 127.0.0.1:8080, getaddrinfo ENOTFOUND ...).
  while (cause instanceof Error && cause.cause instanceof Error) cause = cause.cause
  return `the database server does not answer${cause instanceof Error ? ` (${cause.message})` : ''}`
}

/**
 * The error's message, or DATABASE_LOCKED_MESSAGE for a database locked past the busy timeout.
 * A 422's message alone ("The given data was invalid.") does not say what was wrong: its field messages follow it.
 */
export function commandErrorMessage(error: unknown): string {
  if (isDatabaseLocked(error)) return DATABASE_LOCKED_MESSAGE
  if (isDatabaseUnreachable(error)) return unreachableMessage(error)
  if (!(error instanceof Error)) return String(error)
  const fields = isHttpError(error) ? error.details?.errors : undefined
  if (typeof fields !== 'object' || fields === null) return error.message
  const messages = new Set(Object.values(fields).flatMap((list: unknown) => (Array.isArray(list) ? list.map(String) : [])))
  return [error.message, ...messages].join(' ')
}
