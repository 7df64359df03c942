/**
 * The one HTTP error type. Thrown (or returned) anywhere in a handler or
 * middleware, it becomes the JSON error envelope
 * `{ success: false, error, code, ...details }`.
 */

const HTTP_ERROR_BRAND = Symbol.for('svc.http-error')

export type ErrorDetails = Record<string, unknown>

export class HttpError extends Error {
  readonly status: number
  readonly details: ErrorDetails | undefined
  readonly headers: Record<string, string> | undefined;
  readonly [HTTP_ERROR_BRAND] = true

  /**
   * @example throw new HttpError(404, 'Post not found')
   * @example throw new HttpError(429, 'Too many requests', { headers: { 'Retry-After': '30' } })
   */
  constructor(
    status: number,
    message: string,
    options: { details?: ErrorDetails; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'HttpError'
    this.status = status
    this.details = options.details
    this.headers = options.headers
  }
}

/** Field name => messages, as in the 422 body's `errors`. */
export type FieldErrors = Record<string, string[]>

/** The 422's `error` unless the thrower words its own; answered in the request's language (`validation.invalid_data`). */
export const VALIDATION_FAILED_MESSAGE = 'The given data was invalid.'

/**
 * A field's message written in svc's English where no request was at hand to
 * choose a language (a model's unique index): the answer words it again, as
 * `validation.<rule>` in the request's language.
 */
export interface UnwordedFailure {
  field: string
  rule: string
  /** The field's name for people, as `{field}` when the lang file has no `attributes.<field>`. */
  label: string
}

/** 422 with per-field messages. */
export class ValidationError extends HttpError {
  readonly errors: FieldErrors
  readonly failures: readonly UnwordedFailure[]

  constructor(errors: FieldErrors, message = VALIDATION_FAILED_MESSAGE, options: { cause?: unknown; failures?: readonly UnwordedFailure[] } = {}) {
    super(422, message, { details: { errors }, cause: options.cause })
    this.name = 'ValidationError'
    this.errors = errors
    this.failures = options.failures ?? []
  }
}

/**
 * True for any svc HttpError, also one created by another copy of the
 * framework (an app bundled with its own copy), hence the registered symbol.
 */
export function isHttpError(value: unknown): value is HttpError {
  return typeof value === 'object' && value !== null && HTTP_ERROR_BRAND in value
}
