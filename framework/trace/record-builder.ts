/**
 * Turns a captured trace (plain data) into the stored record: everything
 * redacted, N+1 detected, bodies parsed or cut. The writer runs it on
 * chunks of captured traces, after their responses are ready.
 *
 * A batch builds its records with one builder, which shares what repeats:
 * when a record's redaction found no secret, the next record reuses its
 * request headers, request body and response body objects if their raw
 * inputs are equal, instead of redacting and parsing them again. Shared
 * parts are what the batch codec then recognises at once as unchanged.
 */
import type { QueryRecord } from '../database/database.ts'
import type { BodyRead, RawTrace } from './capture.ts'
import type { TraceConfig } from './config.ts'
import { Redactor } from './redact.ts'
import {
  emptyBody,
  REDACTED,
  type CapturedBody,
  type NPlusOneFinding,
  type TraceEvent,
  type TraceException,
  type TraceMiddleware,
  type TraceQuery,
  type TraceRecord,
  type TraceSourceLocation,
} from './record.ts'
import { QuerySite } from './query-site.ts'
import { detectNPlusOne } from './sql-shape.ts'

export type RecordBuilder = (raw: RawTrace) => TraceRecord

/** Builds one record. For many (a batch), `createRecordBuilder` shares what repeats. */
export function buildRecord(raw: RawTrace, config: TraceConfig, memoryMb: number | null): TraceRecord {
  return createRecordBuilder(config, memoryMb)(raw)
}

export function createRecordBuilder(config: TraceConfig, memoryMb: number | null): RecordBuilder {
  const limit = config.bodyLimit
  const timestamp = isoTimestamps()
  // The last record built and its inputs, kept only while its redaction found no secret.
  let previous: { raw: RawTrace; record: TraceRecord } | undefined
  const redactor = new Redactor(config.redactHeaders, config.redactFields)

  return (raw) => {
    redactor.forget()
    const last = previous
    const headers =
      last !== undefined && sameStrings(last.raw.request_headers, raw.request_headers) ? last.record.headers : redactor.headers(raw.request_headers)
    const body =
      last !== undefined && sameRequestBody(last.raw, raw) ? last.record.body : requestBody(raw, redactor, limit)
    const responseBody =
      last !== undefined && sameResponseBody(last.raw, raw)
        ? last.record.response.body
        : capturedText(raw.response_body, raw.response_type, redactor, limit, true)
    const queries: TraceQuery[] = raw.queries.length === 0 ? NO_QUERIES : raw.queries.map((q) => ({
      sql: q.sql,
      args: plainArgs(q.args),
      duration_ms: q.duration_ms,
      rows: q.rows,
      start_ms: round(Math.max(0, q.startedAt - raw.started_at)),
      last_insert_rowid: q.lastInsertRowid ?? null,
      error: q.error ?? null,
      source: q.caller instanceof QuerySite ? q.caller.location(appFrame) : null,
    }))
    const record: TraceRecord = {
      trace_id: raw.trace_id,
      method: raw.method,
      path: raw.path,
      query: redactor.queryString(raw.search),
      route: raw.route,
      status_code: raw.status,
      headers,
      body,
      queries,
      // Shared, never altered (records are read-only once built); sorted by start when there are several.
      middleware: raw.middleware.length < 2 ? (raw.middleware as TraceMiddleware[]) : [...raw.middleware].sort((a, b) => a.start_ms - b.start_ms),
      exception: raw.error === null ? null : exceptionOf(raw.error, raw.status, redactor),
      events: raw.events.length === 0 ? NO_EVENTS : raw.events.map((event) => eventOf(event, raw.started_at, redactor)),
      events_omitted: raw.events_omitted,
      refused_before_app: raw.refused_before_app,
      trace: raw.error !== null && raw.debug && raw.error.stack ? raw.error.stack.split('\n').map((line) => redactor.text(line.trim())) : null,
      duration_ms: round(raw.duration_ms),
      memory_mb: memoryMb,
      n_plus_one: queries.length === 0 ? NO_FINDINGS : detectNPlusOne(queries, config.nPlusOneThreshold),
      ip: raw.ip,
      timestamp: timestamp(raw.started_epoch),
      user_id: raw.user_id,
      response: { status: raw.status, headers: redactor.headers(raw.response_headers), body: responseBody },
    }
    // Parts are shared only between records free of secrets: scrubbing copies what it changes, so a shared part is never altered.
    const secretFree = redactor.secrets.size === 0
    previous = secretFree ? { raw, record } : undefined
    return secretFree ? record : redactor.scrub(record)
  }
}

// Shared by every record without queries, so that the batch codec sees them unchanged at once.
const NO_QUERIES: TraceQuery[] = Object.freeze([]) as unknown as TraceQuery[]
const NO_FINDINGS: NPlusOneFinding[] = Object.freeze([]) as unknown as NPlusOneFinding[]
const NO_EVENTS: TraceEvent[] = Object.freeze([]) as unknown as TraceEvent[]

function eventOf(event: RawTrace['events'][number], startedAt: number, redactor: Redactor): TraceEvent {
  return {
    name: event.name,
    start_ms: round(Math.max(0, event.startedAt - startedAt)),
    duration_ms: round(event.duration_ms),
    listeners: event.listeners.map((listener) => ({
      name: listener.name,
      queued: listener.queued,
      duration_ms: listener.duration_ms === null ? null : round(listener.duration_ms),
      // A listener's error may quote what it failed on, as an exception's may: redacted as text is.
      error: listener.error === null ? null : redactor.text(listener.error),
    })),
  }
}

function sameStrings(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  if (a === b) return true
  let count = 0
  for (const name in a) {
    if (a[name] !== b[name]) return false
    count++
  }
  for (const _ in b) count--
  return count === 0
}

function sameRequestBody(a: RawTrace, b: RawTrace): boolean {
  const x = a.request_body
  const y = b.request_body
  if (x.kind === 'none' || y.kind === 'none') return x.kind === y.kind
  // JSON bodies arrive parsed (objects of their own): comparing them would cost what building does.
  if (x.kind !== 'text' || y.kind !== 'text') return false
  return sameRead(x, y) && a.request_type === b.request_type
}

function sameResponseBody(a: RawTrace, b: RawTrace): boolean {
  const x = a.response_body
  const y = b.response_body
  if (x === null || y === null) return x === y
  return sameRead(x, y) && a.response_type === b.response_type
}

function sameRead(x: BodyRead, y: BodyRead): boolean {
  return x.text === y.text && x.size === y.size && x.truncated === y.truncated && x.incomplete === y.incomplete && x.capped === y.capped
}

function requestBody(raw: RawTrace, redactor: Redactor, limit: number): CapturedBody {
  const source = raw.request_body
  if (source.kind === 'none') return emptyBody()
  // A body refused for its size (413): only how many bytes came (its drained rest included), and whether counting stopped at the cap.
  if (source.kind === 'failed') {
    const body: CapturedBody = { content: null, size: source.size, truncated: source.size > 0, incomplete: source.incomplete === true }
    return source.capped === true ? { ...body, capped: true } : body
  }
  // A body body() refused is kept as the text it was, never parsed and written back: JSON it refused may still parse
  // (a duplicate key, 1e400, an inexact integer), and written back it is another body, which replay would send.
  if (source.kind === 'text') return capturedText(source, source.refused === true ? null : raw.request_type, redactor, limit, false)
  return jsonBody(redactor.json(source.value), source.size, redactor, limit)
}

/** A redacted JSON value as a body: whole when its text fits the limit, else the text prefix. */
function jsonBody(redacted: unknown, size: number, redactor: Redactor, limit: number): CapturedBody {
  const deep = redactor.cutTooDeep()
  const text = JSON.stringify(redacted) ?? ''
  if (text.length <= limit) return { content: redacted, size: size || text.length, truncated: deep, incomplete: false }
  return { content: text.slice(0, limit), size: size || text.length, truncated: true, incomplete: false }
}

function capturedText(read: BodyRead | null, type: string | null, redactor: Redactor, limit: number, response: boolean): CapturedBody {
  if (read === null) return emptyBody()
  const { size } = read
  const incomplete = read.incomplete === true
  const text = read.text.length > limit ? read.text.slice(0, limit) : read.text
  // A request body of bytes that are not UTF-8 (an image, a gzip) decoded as U+FFFD: not what was sent, so not whole.
  // Only request text bodies are checked (rare: JSON ones arrive parsed), never the response, on the writer's path.
  const cut = read.truncated || read.text.length > limit || (!response && !keptWhole(read.text, size))
  if (size === 0 && !incomplete) return emptyBody()
  if (!cut && type !== null && type.includes('json')) {
    try {
      const value = JSON.parse(text) as unknown
      return jsonBody(response ? redactor.responseJson(value) : redactor.json(value), size, redactor, limit)
    } catch {
      // not JSON after all: kept as text
    }
  }
  const body: CapturedBody = { content: redactor.text(text), size, truncated: cut, incomplete }
  return read.capped === true ? { ...body, capped: true } : body
}

/** Whether `text` is what `size` bytes of UTF-8 decode to without a replacement character (so re-encoding it sends them). */
function keptWhole(text: string, size: number): boolean {
  return !text.includes('\uFFFD') || new TextEncoder().encode(text).byteLength === size
}

const round = (ms: number): number => Math.round(ms * 1000) / 1000

/**
 * `toISOString` for epoch ms, formatting the date and time only when the
 * second changes. Records of the same millisecond get the very same string:
 * the batch codec then sees an unchanged timestamp without comparing text.
 */
function isoTimestamps(): (epochMs: number) => string {
  let second = Number.NaN
  let prefix = ''
  let lastEpoch = Number.NaN
  let last = ''
  return (epochMs) => {
    if (epochMs === lastEpoch) return last
    if (!Number.isInteger(epochMs) || epochMs < 0) return new Date(epochMs).toISOString()
    const ms = epochMs % 1000
    if (epochMs - ms !== second) {
      const iso = new Date(epochMs).toISOString()
      // Beyond year 9999 the format is longer: nothing is cached for those.
      if (iso.length !== 24) return iso
      second = epochMs - ms
      prefix = iso.slice(0, 20)
    }
    lastEpoch = epochMs
    last = `${prefix}${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}Z`
    return last
  }
}

function plainArgs(args: QueryRecord['args']): TraceQuery['args'] {
  if (args === undefined || args === null) return null
  if (Array.isArray(args)) return args.map(plainValue)
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(args)) out[key] = plainValue((args as Record<string, unknown>)[key])
  return out
}

function plainValue(value: unknown): unknown {
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString()
  if (value instanceof Date) return value.toISOString()
  if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) return `[blob ${(value as ArrayBuffer).byteLength} bytes]`
  if (value === undefined) return null
  // A password hash is no password, but it is not for a log either.
  if (typeof value === 'string' && PASSWORD_HASH.test(value)) return REDACTED
  return value
}

function exceptionOf(error: NonNullable<RawTrace['error']>, status: number, redactor: Redactor): TraceException {
  // A message may quote what it failed on (a parser's excerpt of a body, a query string): redacted as text is.
  return { class: error.class, message: redactor.text(error.message), status, errors: error.errors, location: appFrame(error.stack ?? undefined) }
}

const PASSWORD_HASH = /^\$(argon2(id|i|d)|2[aby]|scrypt|pbkdf2[-\w]*)\$/

/** svc's own code: the framework and, beside it, the CLI (whose development server wraps the app's fetch). */
const SVC_DIRS = ['../', '../../cli/'].flatMap((relative) => {
  try {
    return [decodeURIComponent(new URL(relative, import.meta.url).pathname)]
  } catch {
    return []
  }
})
const FRAME = /\(?((?:file:\/\/)?[^()\s]+?):(\d+):(\d+)\)?$/

// svc's middleware pipeline: a frame past it was only passing the request on (`await next()`), it threw nothing.
const PIPELINE = SVC_DIRS.length > 0 ? `${SVC_DIRS[0]}middleware/compose.` : null

/**
 * Where the app threw: the first stack frame outside svc, node_modules and
 * the runtime, so an app's handler or middleware that threw, or that called
 * what threw (a library, an svc helper such as `c.body()`). Null when svc threw
 * in its own pipeline (auth, validation of a declared `.body()`, throttle):
 * an app middleware that is next on the stack only awaited `next()`, and
 * naming it sent users to the wrong file (docs/traces.md, "Where it threw").
 */
export function appFrame(stack: string | undefined): TraceSourceLocation | null {
  if (stack === undefined) return null
  for (const line of stack.split('\n').slice(1)) {
    const match = FRAME.exec(line.trim())
    if (match === null) continue
    let file = match[1]!
    if (file.startsWith('file://')) file = decodeURIComponent(new URL(file).pathname)
    if (PIPELINE !== null && file.startsWith(PIPELINE)) return null
    if (file.startsWith('node:') || file.includes('/node_modules/') || !file.includes('/')) continue
    if (SVC_DIRS.some((dir) => file.startsWith(dir))) continue
    return { file, line: Number(match[2]), column: Number(match[3]) }
  }
  return null
}
