/**
 * The Idempotency-Key header's grammar, in one place: the middleware checks
 * a header against it and the OpenAPI document publishes it as the header's
 * `pattern`, so that what a client generated from the document sends is what
 * the server accepts, key for key.
 *
 * The draft makes the value a structured-field string (RFC 8941 3.3.3:
 * `"8e03978e-..."`, printable ASCII, spaces allowed, `"` and `\` only escaped
 * as `\"` and `\\`); a bare key is accepted too, as visible ASCII without
 * quotes or backslashes, so it cannot be half of a string. Either way 1 to
 * 255 characters once unquoted (an escape is one character).
 */

export const MAX_IDEMPOTENCY_KEY_LENGTH = 255

/** The header's value as a regular expression source (ECMA-262, which JSON Schema's `pattern` is). */
export const IDEMPOTENCY_KEY_PATTERN = `^(?:"(?:[\\x20\\x21\\x23-\\x5b\\x5d-\\x7e]|\\\\["\\\\]){1,${MAX_IDEMPOTENCY_KEY_LENGTH}}"|[\\x21\\x23-\\x5b\\x5d-\\x7e]{1,${MAX_IDEMPOTENCY_KEY_LENGTH}})$`

/** The longest header value the pattern matches: every character of a quoted key escaped, and the quotes. */
export const MAX_IDEMPOTENCY_HEADER_LENGTH = 2 * MAX_IDEMPOTENCY_KEY_LENGTH + 2

const KEY = new RegExp(IDEMPOTENCY_KEY_PATTERN)

/**
 * The key a header value names (unquoted), or undefined when the value does
 * not match the grammar. The value is taken as the runtime gives it (`Headers`
 * already strips the spaces and tabs around it): trimming more (a no-break
 * space) would accept what the published pattern refuses.
 */
export function idempotencyKeyOf(header: string): string | undefined {
  if (!KEY.test(header)) return undefined
  return header.startsWith('"') ? header.slice(1, -1).replace(/\\(["\\])/g, '$1') : header
}
