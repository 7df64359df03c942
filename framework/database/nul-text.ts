/**
 * Text holding a NUL character (U+0000) as a statement argument. libSQL
 * stores it whole but reads it back cut at the NUL (`'abc\u0000def'` comes
 * back as `'abc'`, and SQLite's own `length()` and `like` stop there too):
 * a write answered 200 would come back changed. So the database module
 * refuses such an argument before sending the statement, on every driver
 * (an app that runs on D1 today may run on libSQL tomorrow). Bytes go in
 * whole as a blob (a `Uint8Array` argument), which reads back whole.
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

/**
 * The position (1-based) or name of the first text argument holding a NUL.
 * On every statement, so it only looks: no copy of the arguments is made.
 */
export function nulArgument(args: InArgs | undefined): number | string | undefined {
  if (args === undefined) return undefined
  if (Array.isArray(args)) {
    for (let i = 0; i < args.length; i++) {
      const value: unknown = args[i]
      if (typeof value === 'string' && value.indexOf('\0') !== -1) return i + 1
    }
    return undefined
  }
  for (const name in args) {
    const value: unknown = args[name]
    if (typeof value === 'string' && value.indexOf('\0') !== -1) return name
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
