/**
 * Statement arguments the database cannot take as given, refused before the
 * statement is sent, with an error that says why and what to do.
 *
 * Text holding a NUL character (U+0000). libSQL
 * stores it whole but reads it back cut at the NUL (`'abc\u0000def'` comes
 * back as `'abc'`, and SQLite's own `length()` and `like` stop there too):
 * a write answered 200 would come back changed. So the database module
 * refuses such an argument before sending the statement, on every driver
 * (an app that runs on D1 today may run on libSQL tomorrow). Bytes go in
 * whole as a blob (a `Uint8Array` argument), which reads back whole.
 *
 * A number no column can hold: NaN, Infinity, or a bigint beyond 64 bits.
 * libSQL throws a RangeError for it, which answered 500; it nearly always
 * comes from a request value that was not checked (`Number(c.params.id)`
 * on `/posts/abc`), so it is the client's 422 with a message for the
 * developer, like the NUL.
 */
import type { InArgs } from '@libsql/client'
import { HttpError } from '../http/http-error.ts'

export const NUL_TEXT_MESSAGE =
  'Text containing a NUL character (U+0000) cannot be stored: the database would read it back cut at the NUL. ' +
  'Refuse it in the request schema with withoutNul() or visibleText() from svc, or store the bytes as a blob (a Uint8Array).'

/** 422: a statement argument is text holding a NUL; nothing of the statement (or of its batch) was run. */
export class NulTextError extends HttpError {
  /**
   * @param argument the argument's position (1-based) or name
   * @param sql the statement it was given to (for logs and traces; not in the answer)
   */
  constructor(
    readonly argument: number | string,
    readonly sql: string,
  ) {
    super(422, NUL_TEXT_MESSAGE)
    this.name = 'NulTextError'
  }
}

export const NUMBER_ARGUMENT_MESSAGE =
  'A number the database cannot hold (NaN, Infinity, or an integer beyond 64 bits) was given to a query. ' +
  "Check the number where it comes from the request: a route constraint such as .where('id', /\\d+/), or v.finite() in its schema."

/** 422: a statement argument is a number no column can hold; nothing of the statement (or of its batch) was run. */
export class NumberArgumentError extends HttpError {
  /**
   * @param argument the argument's position (1-based) or name
   * @param sql the statement it was given to (for logs and traces; not in the answer)
   */
  constructor(
    readonly argument: number | string,
    readonly sql: string,
  ) {
    super(422, NUMBER_ARGUMENT_MESSAGE)
    this.name = 'NumberArgumentError'
  }
}

const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n

/** Why the database cannot take this value as given, or undefined when it can. */
function refusal(value: unknown): typeof NulTextError | typeof NumberArgumentError | undefined {
  if (typeof value === 'string') return value.indexOf('\0') === -1 ? undefined : NulTextError
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : NumberArgumentError
  if (typeof value === 'bigint') return value < INT64_MIN || value > INT64_MAX ? NumberArgumentError : undefined
  return undefined
}

/**
 * The error for the first argument the database cannot take as given
 * (text holding a NUL, a number no column can hold), or undefined. On every
 * statement, so it only looks: no copy of the arguments is made.
 */
export function refusedArgument(args: InArgs | undefined, sql: string): NulTextError | NumberArgumentError | undefined {
  if (args === undefined) return undefined
  if (Array.isArray(args)) {
    for (let i = 0; i < args.length; i++) {
      const Refused = refusal(args[i])
      if (Refused !== undefined) return new Refused(i + 1, sql)
    }
    return undefined
  }
  for (const name in args) {
    const Refused = refusal(args[name])
    if (Refused !== undefined) return new Refused(name, sql)
  }
  return undefined
}

/**
 * Text svc stores that nobody validated (a failed job's error and stack, a
 * scheduled task's error), with each NUL written as `\u0000`: it must be
 * stored, and it is read by people, who see where the NUL was.
 */
export function storableText(text: string): string {
  return text.indexOf('\0') === -1 ? text : text.replaceAll('\0', '\\u0000')
}
