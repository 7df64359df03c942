/**
 * Reads a JSON request body with a byte limit enforced on what is actually
 * read (a client can lie in Content-Length or stream chunked).
 *
 * Error messages never quote the body: a password in a malformed body must
 * not come back in the response, nor reach a log through the message. The
 * text that was refused stays on the error, out of the response, for the
 * tracer (`rejectedBodyOf`), which stores it redacted so that a replay
 * resends what was sent.
 */
import { discardRest, MAX_DISCARDED_BYTES, type DrainedRest } from './discard-body.ts'
import { HttpError } from './http-error.ts'
import { jsonSyntaxErrorAt } from './json-syntax.ts'

export const DEFAULT_BODY_LIMIT = 1024 * 1024

/** A body `readJsonBody` refused: its text (null for a 413: not kept) and the bytes seen. */
export interface RejectedBody {
  text: string | null
  size: number
  /** The body stopped before its end: the client closed the connection mid-body. */
  incomplete: boolean
  /** A 413 counted on the bytes (chunked): the rest after the limit, read and dropped after the answer (the tracer adds it to `size`). */
  rest?: DrainedRest
}

const REJECTED_BODY = Symbol('svc.rejectedBody')

/** The body an error of `readJsonBody` refused, if it is one. */
export function rejectedBodyOf(error: unknown): RejectedBody | undefined {
  return typeof error === 'object' && error !== null ? (error as { [REJECTED_BODY]?: RejectedBody })[REJECTED_BODY] : undefined
}

export async function readJsonBody(request: Request, limit: number): Promise<unknown> {
  const declared = request.headers.get('content-length')
  if (declared !== null && Number(declared) > limit) throw tooLarge(limit, Number(declared))
  if (request.body === null) return {}

  const bytes = await readBytesWithin(request.body, limit)
  const type = request.headers.get('content-type')
  // The declared type first: a binary upload (an image, application/octet-stream) is the wrong kind of body (415), not malformed JSON.
  if (!isJsonType(type)) {
    const lossy = new TextDecoder().decode(bytes)
    if (lossy.trim() === '') return {}
    throw refused(new HttpError(415, `Unsupported Media Type: send the body as application/json (got ${type ?? 'no Content-Type'})`), lossy, bytes.byteLength)
  }
  // RFC 9112 6.1: a transfer coding the server does not understand is a 501. Node undoes chunked alone: with
  // `Transfer-Encoding: gzip, chunked` the gzip bytes came through as they were, and plain ones were taken as JSON.
  const transferCoding = request.headers
    .get('transfer-encoding')
    ?.split(',')
    .map((coding) => coding.trim().toLowerCase())
    .find((coding) => coding !== '' && coding !== 'chunked' && coding !== 'identity')
  if (transferCoding !== undefined && bytes.byteLength > 0) {
    throw refused(
      new HttpError(501, `Not Implemented: the body is sent with the transfer coding ${transferCoding}, which is not read; send it with Content-Length or chunked alone`),
      new TextDecoder().decode(bytes),
      bytes.byteLength,
    )
  }
  // RFC 8259 8.1: JSON between systems is UTF-8, and application/json defines no charset. A body declared in another
  // was read as UTF-8 anyway: ISO-8859-1's é was a 400 that blamed the JSON, and its "Ã©" was stored as "é".
  const charset = charsetOf(type)
  if (charset !== undefined && !UTF8_READABLE_CHARSETS.has(charset) && bytes.byteLength > 0) {
    throw refused(
      new HttpError(415, `Unsupported Media Type: the body is declared as ${charset}; JSON is read as UTF-8 only (send it as UTF-8, with charset=utf-8 or no charset)`),
      new TextDecoder().decode(bytes),
      bytes.byteLength,
    )
  }
  // A compressed body (gzip from a client library) is not decoded here: read as JSON it was "not valid UTF-8", and a
  // plain body labelled `br` was taken as if uncompressed. RFC 9110 15.5.16: 415, with the codings accepted.
  const coding = request.headers.get('content-encoding')?.trim().toLowerCase()
  if (coding !== undefined && coding !== '' && coding !== 'identity' && bytes.byteLength > 0) {
    throw refused(
      new HttpError(415, `Unsupported Media Type: the body is encoded as ${coding}, which is not read; send it uncompressed (no Content-Encoding)`, {
        headers: { 'Accept-Encoding': 'identity' },
      }),
      new TextDecoder().decode(bytes),
      bytes.byteLength,
    )
  }
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw refused(new HttpError(400, 'Malformed JSON body: not valid UTF-8'), new TextDecoder().decode(bytes), bytes.byteLength)
  }
  if (text.trim() === '') return {}
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw refused(new HttpError(400, `Malformed JSON body: ${parseProblem(text)}`), text, bytes.byteLength)
  }
  // JSON has no Infinity, yet `1e400` parses to it: a handler or the database would meet a value no column keeps
  // (libSQL throws: a 500). Only a body with a long exponent or a long run of digits can hold one.
  if (MAYBE_HUGE_NUMBER.test(text)) {
    const at = pathWhere(value, isNonFinite)
    if (at !== undefined) {
      throw refused(new HttpError(400, `Malformed JSON body: the number at ${at === '' ? 'the top level' : at} is too large to represent`), text, bytes.byteLength)
    }
  }
  // An integer written with more digits than a double holds (`9007199254740993`, an id from a 64-bit column) parses
  // to a neighbour (`9007199254740992`): the handler would store another number, and answer it, without a word.
  // RFC 8259 6 and I-JSON: integers are exact only up to 2^53 - 1. One written as a fraction or exponent is a float.
  if (MAYBE_LONG_INTEGER.test(text)) {
    const literal = inexactIntegerIn(text)
    if (literal !== undefined) {
      const read = Number(literal)
      const at = pathWhere(value, (candidate) => candidate === read)
      throw refused(
        new HttpError(400, `Malformed JSON body: the integer at ${at === undefined || at === '' ? 'the top level' : at} has more digits than can be read exactly (beyond 2^53 - 1); send it as a string`),
        text,
        bytes.byteLength,
      )
    }
  }
  // A key given twice in one object: JSON.parse keeps the last value and drops the first without a word, where a
  // proxy or another parser may keep the first (RFC 8259 4: names SHOULD be unique; I-JSON: MUST). Counted first
  // (members written against keys read), so the walk that names it runs only for a body that has one.
  if (membersIn(text) > keysIn(value)) {
    const at = duplicateKeyIn(text)
    if (at !== undefined) {
      throw refused(new HttpError(400, `Malformed JSON body: the key ${at} is given twice in one object; send each key once`), text, bytes.byteLength)
    }
  }
  // JSON lets a string escape half of a surrogate pair alone (`"\ud800"`), which is not Unicode text: UTF-8 has no
  // bytes for it, so the database stored U+FFFD in its place and a 201 came back changed (RFC 7493, I-JSON,
  // forbids them). Only an escape can make one: a raw one is not UTF-8, refused above.
  if (MAYBE_SURROGATE_ESCAPE.test(text)) {
    const at = pathWhere(value, hasLoneSurrogate)
    if (at !== undefined) {
      throw refused(
        new HttpError(400, `Malformed JSON body: the text at ${at === '' ? 'the top level' : at} is not valid Unicode (half of a surrogate pair, escaped alone)`),
        text,
        bytes.byteLength,
      )
    }
  }
  return value
}

const MAYBE_HUGE_NUMBER = /\d[eE][+-]?\d{3}|\d{309}/
const MAYBE_LONG_INTEGER = /\d{16}/
const NUMBER_TOKEN = /-?\d+(\.\d+)?([eE][+-]?\d+)?/y
const MAYBE_SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** The first integer literal (no fraction, no exponent) of valid JSON `text` whose value a double changes, if any. */
function inexactIntegerIn(text: string): string | undefined {
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i)
    if (char === 0x22) {
      i = stringEndAt(text, i)
    } else if (char === 0x2d || (char >= 0x30 && char <= 0x39)) {
      NUMBER_TOKEN.lastIndex = i
      const [token, fraction, exponent] = NUMBER_TOKEN.exec(text)!
      i += token.length - 1
      if (fraction === undefined && exponent === undefined && token.length > 15 && BigInt(token) !== BigInt(Number(token))) return token
    }
  }
  return undefined
}

/** The members (`"key": value`) written in valid JSON `text`: its colons outside strings. */
function membersIn(text: string): number {
  let count = 0
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i)
    if (char === 0x22) i = stringEndAt(text, i)
    else if (char === 0x3a) count++
  }
  return count
}

/** The keys of every object in a parsed value (iterative: a body may nest deeper than the stack). */
function keysIn(root: unknown): number {
  let count = 0
  const pending: unknown[] = [root]
  while (pending.length > 0) {
    const value = pending.pop()
    if (typeof value !== 'object' || value === null) continue
    if (Array.isArray(value)) {
      for (const item of value) pending.push(item)
      continue
    }
    for (const key of Object.keys(value)) {
      count++
      pending.push((value as Record<string, unknown>)[key])
    }
  }
  return count
}

/** The dotted path of the first key valid JSON `text` gives twice in one object, if any. */
function duplicateKeyIn(text: string): string | undefined {
  const frames: Array<{ keys: Set<string> | undefined; path: string; index: number; lastKey: string }> = []
  let expectKey = false
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i)
    if (char === 0x22) {
      const end = stringEndAt(text, i)
      if (expectKey) {
        const frame = frames.at(-1)!
        const key = JSON.parse(text.slice(i, end + 1)) as string
        if (frame.keys!.has(key)) return frame.path === '' ? key : `${frame.path}.${key}`
        frame.keys!.add(key)
        frame.lastKey = key
        expectKey = false
      }
      i = end
    } else if (char === 0x7b || char === 0x5b) {
      const parent = frames.at(-1)
      const key = parent === undefined ? '' : parent.keys !== undefined ? parent.lastKey : String(parent.index)
      frames.push({ keys: char === 0x7b ? new Set() : undefined, path: parent === undefined ? '' : parent.path === '' ? key : `${parent.path}.${key}`, index: 0, lastKey: '' })
      expectKey = char === 0x7b
    } else if (char === 0x7d || char === 0x5d) {
      frames.pop()
    } else if (char === 0x2c) {
      const frame = frames.at(-1)!
      if (frame.keys !== undefined) expectKey = true
      else frame.index++
    }
  }
  return undefined
}

/** The index of the quote that closes the string opening at `start` (the text is valid JSON). */
function stringEndAt(text: string, start: number): number {
  let i = start + 1
  while (i < text.length && text.charCodeAt(i) !== 0x22) i += text.charCodeAt(i) === 0x5c ? 2 : 1
  return i
}

const isNonFinite = (value: unknown) => typeof value === 'number' && !Number.isFinite(value)
const hasLoneSurrogate = (value: unknown) => typeof value === 'string' && LONE_SURROGATE.test(value)

/**
 * The dotted path of the first value (or key) `bad` picks, or undefined.
 * Iterative: a body may nest deeper than the stack.
 */
function pathWhere(root: unknown, bad: (value: unknown) => boolean): string | undefined {
  const pending: Array<[unknown, string]> = [[root, '']]
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [value, path] = next
    if (bad(value)) return path
    if (typeof value !== 'object' || value === null) continue
    for (const [key, item] of Object.entries(value)) {
      const at = path === '' ? key : `${path}.${key}`
      if (bad(key)) return at
      pending.push([item, at])
    }
  }
  return undefined
}

export function isJsonType(type: string | null): type is string {
  if (type === null) return false
  const essence = type.split(';', 1)[0]!.trim().toLowerCase()
  return essence === 'application/json' || (essence.startsWith('application/') && essence.endsWith('+json'))
}

/** Charsets a UTF-8 reader reads as sent: UTF-8 itself, and US-ASCII, which is its first 128 characters. */
const UTF8_READABLE_CHARSETS = new Set(['utf-8', 'utf8', 'us-ascii'])

/** The `charset` parameter of a Content-Type, lower-cased and unquoted; undefined when there is none. */
function charsetOf(type: string): string | undefined {
  for (const parameter of type.split(';').slice(1)) {
    const [name, value = ''] = parameter.split('=', 2)
    if (name!.trim().toLowerCase() === 'charset') return value.trim().replace(/^"(.*)"$/, '$1').toLowerCase()
  }
  return undefined
}

/**
 * Where the JSON is broken, never what it says (a password in the body must
 * not come back). Found by svc rather than read from the runtime's message:
 * V8's names a position, JavaScriptCore's (Bun) none, and both quote the input.
 */
function parseProblem(text: string): string {
  const at = jsonSyntaxErrorAt(text)
  if (at === undefined) return 'not valid JSON'
  if (at >= text.length) return 'the JSON ends before it is complete'
  const lineStart = text.lastIndexOf('\n', at - 1) + 1
  let line = 1
  for (let i = text.indexOf('\n'); i !== -1 && i < lineStart; i = text.indexOf('\n', i + 1)) line++
  return `invalid JSON at line ${line}, column ${at - lineStart + 1}`
}

async function readBytesWithin(stream: ReadableStream<Uint8Array>, limit: number): Promise<Uint8Array> {
  const reader = stream.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    let next: ReadableStreamReadResult<Uint8Array>
    try {
      next = await reader.read()
    } catch (error) {
      // Only the connection fails an incoming body mid-read: the client went away (Node's "aborted"). A 400, as
      // body-parser answers it, not a 500: nothing on the server failed, and the error rate must not say so.
      // The adapter fails it with an HttpError of its own when the rest did not arrive in time (408, node/client-error.ts).
      const refusal = error instanceof HttpError ? error : new HttpError(400, 'Bad Request: the connection closed before the body was complete')
      throw refused(refusal, new TextDecoder().decode(concat(chunks, size)), size, true)
    }
    const { done, value } = next
    if (done) break
    size += value.byteLength
    if (size > limit) {
      // Not cancelled: the client, still sending, must be able to finish and read its 413 (discard-body.ts). The
      // rest is counted for the trace, and the drain stops where the whole body would pass the cap.
      throw tooLarge(limit, size, discardRest(reader, Math.max(0, MAX_DISCARDED_BYTES - size)))
    }
    chunks.push(value)
  }
  return chunks.length === 1 ? chunks[0]! : concat(chunks, size)
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  const bytes = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    bytes.set(chunk, offset)
    offset += chunk.byteLength
  }
  return bytes
}

function tooLarge(limit: number, size: number, rest?: DrainedRest): HttpError {
  return refused(new HttpError(413, `Payload Too Large: the body limit is ${limit} bytes`), null, size, false, rest)
}

function refused(error: HttpError, text: string | null, size: number, incomplete = false, rest?: DrainedRest): HttpError {
  const body: RejectedBody = rest === undefined ? { text, size, incomplete } : { text, size, incomplete, rest }
  Object.defineProperty(error, REJECTED_BODY, { value: body, enumerable: false })
  return error
}
