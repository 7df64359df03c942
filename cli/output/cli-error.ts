/** User-facing CLI failures: a stable code, a message and the fix. */

export class CliError extends Error {
  readonly code: string
  readonly hint: string | undefined
  readonly exitCode: number

  constructor(code: string, message: string, options: { hint?: string; exitCode?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'CliError'
    this.code = code
    this.hint = options.hint
    this.exitCode = options.exitCode ?? 1
  }
}

export function isCliError(value: unknown): value is CliError {
  return value instanceof CliError
}
