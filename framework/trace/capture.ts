/**
 * Capture: the per-request recorder (queries and middleware timings, pushed
 * as they happen, nothing computed) and the snapshot `end()` takes of the
 * request and response. Turning a snapshot into a record (redaction, N+1,
 * bodies) is `buildRecord`, which the writer runs off the request path.
 */
import type { Context } from '../context/context.ts'
import type { QueryRecord } from '../database/database.ts'
import { isHttpError } from '../http/http-error.ts'
import { knownResponseHeaders, knownResponseText } from '../http/response.ts'
import type { MiddlewareTiming, RequestRecorder } from './recorder.ts'
import type { TraceConfig } from './config.ts'
import { Redactor } from './redact.ts'
import { emptyBody, REDACTED, type CapturedBody, type TraceException, type TraceQuery, type TraceRecord, type TraceSourceLocation } from './record.ts'
import { detectNPlusOne } from './sql-shape.ts'

export class RequestCapture implements RequestRecorder {
  readonly startedAt = performance.now()
  readonly startedEpoch = Date.now()
  readonly queries: QueryRecord[] = []
  /** performance.now() when each query finished. */
  readonly queryEnds: number[] = []
  readonly middleware: MiddlewareTiming[] = []

  recordQuery(query: QueryRecord): void {
    this.queries.push(query)
    this.queryEnds.push(performance.now())
  }

  recordMiddleware(timing: MiddlewareTiming): void {
    this.middleware.push(timing)
  }
}

/** A body as read: the text (possibly cut) and the size seen. */
interface BodyRead {
  text: string
  size: number
  truncated: boolean
}

/**
 * What `end()` keeps: the request copied into plain data at once (so that the
 * request, response and context objects die young), and the bodies still
 * being read, if any.
 */
export interface PendingTrace {
  raw: RawTrace
  /** `c.body()`'s promise (parsed JSON), or the tracer's own read of an unread body. */
  requestBody: Promise<unknown> | Promise<BodyRead> | null
  requestBodyParsed: boolean
  responseBody: Promise<BodyRead> | null
}

export function snapshot(c: Context, response: Response, capture: RequestCapture, bodyLimit: number): PendingTrace {
  const request = c.request
  const requestHeaders: Record<string, string> = {}
  request.headers.forEach((value, name) => (requestHeaders[name] = value))
  const parsed = c.parsedBodyIfRead
  let requestBody: PendingTrace['requestBody'] = parsed ?? null
  if (parsed !== undefined) parsed.catch(() => {})
  else if (mayHaveBody(c.method, requestHeaders) && !request.bodyUsed && request.body !== null) {
    // Only now is `body` touched: on the Node adapter that builds the full Request, which a GET must not pay for.
    requestBody = readCapped(request.body, bodyLimit)
  }
  const responseHeaders: Record<string, string> = {}
  const known = knownResponseHeaders(response)
  if (known !== undefined) for (const name in known) responseHeaders[name.toLowerCase()] = known[name]!
  else response.headers.forEach((value, name) => (responseHeaders[name] = value))
  const knownText = knownResponseText(response)
  const error = c.error
  const queries = capture.queries
  return {
    raw: {
      trace_id: c.traceId,
      method: c.method,
      path: c.path,
      search: searchOf(request.url),
      route: c.route?.path ?? null,
      ip: c.ip ?? null,
      user_id: c.user?.id ?? null,
      started_epoch: capture.startedEpoch,
      duration_ms: performance.now() - capture.startedAt,
      status: response.status,
      debug: c.config.debug,
      request_headers: requestHeaders,
      request_type: requestHeaders['content-type'] ?? null,
      request_body: { kind: 'none' },
      response_headers: responseHeaders,
      response_type: responseHeaders['content-type'] ?? null,
      response_body: knownText === undefined ? null : { text: knownText, size: knownText.length, truncated: false },
      response_known: knownText !== undefined,
      queries:
        queries.length === 0
          ? []
          : queries.map((q, i) => ({
              sql: q.sql,
              args: q.args ?? null,
              duration_ms: q.duration_ms,
              rows: q.rows,
              end_ms: capture.queryEnds[i]! - capture.startedAt,
              last_insert_rowid: q.lastInsertRowid ?? null,
              error: q.error ?? null,
            })),
      middleware: capture.middleware,
      error: error === undefined ? null : rawError(error),
    },
    requestBody,
    requestBodyParsed: parsed !== undefined,
    responseBody: knownText === undefined ? responseStream(response, responseHeaders['content-type'] ?? '', bodyLimit) : null,
  }
}

function mayHaveBody(method: string, headers: Record<string, string>): boolean {
  if (method === 'GET' || method === 'HEAD') return false
  const length = headers['content-length']
  if (length !== undefined) return length !== '0'
  // A Request built in process may carry a body without either header; a body without a type is not read.
  return headers['transfer-encoding'] !== undefined || headers['content-type'] !== undefined
}

function responseStream(response: Response, type: string, limit: number): Promise<BodyRead> | null {
  if (response.body === null || response.bodyUsed) return null
  // Streams (server-sent events...) are never teed: they may not end.
  if (type.includes('event-stream') || !/json|text|xml|x-www-form-urlencoded/.test(type)) return null
  return readCapped(response.clone().body!, limit)
}

async function readCapped(stream: ReadableStream<Uint8Array>, limit: number): Promise<BodyRead> {
  const reader = stream.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  let kept = 0
  let truncated = false
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      size += value.byteLength
      if (kept < limit) {
        const take = value.subarray(0, limit - kept)
        chunks.push(take)
        kept += take.byteLength
      }
      if (size > limit) {
        truncated = true
        await reader.cancel().catch(() => {})
        break
      }
    }
  } catch {
    truncated = true
  }
  const bytes = new Uint8Array(kept)
  let offset = 0
  for (const chunk of chunks) {
    bytes.set(chunk, offset)
    offset += chunk.byteLength
  }
  return { text: new TextDecoder().decode(bytes), size, truncated }
}

const round = (ms: number): number => Math.round(ms * 1000) / 1000

/** A request body as extracted: parsed JSON from `c.body()`, text read by the tracer, or nothing. */
export type RawBody =
  | { kind: 'none' }
  | { kind: 'json'; value: unknown; size: number }
  | { kind: 'failed'; size: number }
  | { kind: 'text'; text: string; size: number; truncated: boolean }

/**
 * A trace as plain data (structured-clonable, nothing redacted yet): what the
 * writer hands to its sink, possibly in another thread, to build the record.
 */
export interface RawTrace {
  trace_id: string
  method: string
  path: string
  search: string
  route: string | null
  ip: string | null
  user_id: number | string | null
  started_epoch: number
  duration_ms: number
  status: number
  debug: boolean
  request_headers: Record<string, string>
  request_type: string | null
  request_body: RawBody
  response_headers: Record<string, string>
  response_type: string | null
  response_body: { text: string; size: number; truncated: boolean } | null
  /** The response text is JSON that svc serialised itself (so it may be embedded in the record as is). */
  response_known: boolean
  queries: Array<{ sql: string; args: unknown; duration_ms: number; rows: number; end_ms: number; last_insert_rowid: number | null; error: string | null }>
  middleware: MiddlewareTiming[]
  error: { class: string; message: string; stack: string | null; errors: Record<string, string[]> | null } | null
}

/** Waits for the bodies still being read; everything else was copied by `snapshot`. */
export async function extract(pending: PendingTrace): Promise<RawTrace> {
  const { raw } = pending
  if (pending.requestBody !== null) raw.request_body = await rawRequestBody(pending, raw.request_headers)
  if (pending.responseBody !== null) raw.response_body = await pending.responseBody
  return raw
}

async function rawRequestBody(pending: PendingTrace, headers: Record<string, string>): Promise<RawBody> {
  const declared = Number(headers['content-length'] ?? 0)
  if (!pending.requestBodyParsed) {
    const read = await (pending.requestBody as Promise<BodyRead>)
    return read.size === 0 ? { kind: 'none' } : { kind: 'text', ...read }
  }
  try {
    return { kind: 'json', value: await pending.requestBody, size: declared }
  } catch {
    // body() failed (400/413/415): the bytes are gone, the exception says why.
    return { kind: 'failed', size: declared }
  }
}

/** The query string of a URL, without parsing it (`c.url` would build a URL object for every traced request). */
function searchOf(url: string): string {
  const query = url.indexOf('?')
  if (query === -1) return ''
  const hash = url.indexOf('#', query)
  return hash === -1 ? url.slice(query) : url.slice(query, hash)
}

function rawError(error: unknown): RawTrace['error'] {
  if (!(error instanceof Error)) return { class: typeof error, message: String(error), stack: null, errors: null }
  const details = isHttpError(error) ? error.details : undefined
  const errors = details !== undefined && typeof details.errors === 'object' && details.errors !== null ? (details.errors as Record<string, string[]>) : null
  return { class: error.name || error.constructor.name, message: error.message, stack: error.stack ?? null, errors }
}

// Stands for a response body kept as the JSON text svc wrote, spliced into the record's JSON at the end.
const RAW_BODY = '\u0000svc:raw-response-body\u0000'
const RAW_BODY_JSON = JSON.stringify(RAW_BODY)
const fieldPatterns = new WeakMap<ReadonlySet<string>, RegExp>()

/** Matches a JSON key that is redacted (`"password":`), to tell whether a body needs the redaction walk. */
function redactedKeyPattern(fields: ReadonlySet<string>): RegExp {
  let pattern = fieldPatterns.get(fields)
  if (pattern === undefined) {
    const names = [...fields].map((field) => field.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    pattern = new RegExp(`"(?:${names.join('|')})"\\s*:`, 'i')
    fieldPatterns.set(fields, pattern)
  }
  return pattern
}

/**
 * The record as the JSON text that is stored. A JSON response body svc wrote
 * itself, with no redacted key and no secret in it, is embedded as it was
 * sent instead of being parsed and serialised again.
 */
export function recordJson(raw: RawTrace, config: TraceConfig, memoryMb: number | null): string {
  const body = raw.response_body
  const embeddable =
    raw.response_known && body !== null && body.size > 0 && body.text.length <= config.bodyLimit && !redactedKeyPattern(config.redactFields).test(body.text)
  if (!embeddable) return JSON.stringify(buildRecord(raw, config, memoryMb))
  let embedded = false
  const record = buildRecord(raw, config, memoryMb, (redactor) => {
    if (redactor.mentionsSecret(body.text)) return undefined
    embedded = true
    return { content: RAW_BODY, size: body.size, truncated: false }
  })
  const json = JSON.stringify(record)
  if (!embedded) return json
  const at = json.lastIndexOf(RAW_BODY_JSON)
  return `${json.slice(0, at)}${body.text}${json.slice(at + RAW_BODY_JSON.length)}`
}

/** Builds the stored record from plain data: everything redacted, N+1 detected. */
export function buildRecord(
  raw: RawTrace,
  config: TraceConfig,
  memoryMb: number | null,
  responseBodyAs?: (redactor: Redactor) => CapturedBody | undefined,
): TraceRecord {
  const redactor = new Redactor(config.redactHeaders, config.redactFields)
  const headers = redactor.headers(raw.request_headers)
  const query = redactor.queryString(raw.search)
  const body = requestBody(raw, redactor, config.bodyLimit)
  const responseHeaders = redactor.headers(raw.response_headers)
  const response = {
    status: raw.status,
    headers: responseHeaders,
    body: responseBodyAs?.(redactor) ?? capturedText(raw.response_body, raw.response_type, redactor, config.bodyLimit),
  }
  const queries: TraceQuery[] = raw.queries.map((q) => ({
    sql: q.sql,
    args: plainArgs(q.args as QueryRecord['args']),
    duration_ms: q.duration_ms,
    rows: q.rows,
    start_ms: round(Math.max(0, q.end_ms - q.duration_ms)),
    last_insert_rowid: q.last_insert_rowid,
    error: q.error,
  }))
  const record: TraceRecord = {
    trace_id: raw.trace_id,
    method: raw.method,
    path: raw.path,
    query,
    route: raw.route,
    status_code: raw.status,
    headers,
    body,
    queries,
    middleware: raw.middleware.length < 2 ? raw.middleware : [...raw.middleware].sort((a, b) => a.start_ms - b.start_ms),
    exception: raw.error === null ? null : exceptionOf(raw.error, raw.status),
    trace: raw.error !== null && raw.debug && raw.error.stack ? raw.error.stack.split('\n').map((line) => line.trim()) : null,
    duration_ms: round(raw.duration_ms),
    memory_mb: memoryMb,
    n_plus_one: detectNPlusOne(queries, config.nPlusOneThreshold),
    ip: raw.ip,
    timestamp: new Date(raw.started_epoch).toISOString(),
    user_id: raw.user_id,
    response,
  }
  return redactor.scrub(record)
}

function requestBody(raw: RawTrace, redactor: Redactor, limit: number): CapturedBody {
  const source = raw.request_body
  if (source.kind === 'none') return emptyBody()
  if (source.kind === 'failed') return { content: null, size: source.size, truncated: false }
  if (source.kind === 'text') return capturedText(source, raw.request_type, redactor, limit)
  const redacted = redactor.json(source.value)
  const text = JSON.stringify(redacted) ?? ''
  const size = source.size || text.length
  if (text.length <= limit) return { content: redacted, size, truncated: false }
  return { content: text.slice(0, limit), size, truncated: true }
}

function capturedText(read: BodyRead | null, type: string | null, redactor: Redactor, limit: number): CapturedBody {
  if (read === null) return emptyBody()
  const { size, truncated } = read
  const text = read.text.length > limit ? read.text.slice(0, limit) : read.text
  const cut = truncated || read.text.length > limit
  if (size === 0) return emptyBody()
  if (!cut && type !== null && type.includes('json')) {
    try {
      return { content: redactor.json(JSON.parse(text)), size, truncated: false }
    } catch {
      // not JSON after all: kept as text
    }
  }
  return { content: redactor.text(text), size, truncated: cut }
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

function exceptionOf(error: NonNullable<RawTrace['error']>, status: number): TraceException {
  return { class: error.class, message: error.message, status, errors: error.errors, location: appFrame(error.stack ?? undefined) }
}

const PASSWORD_HASH = /^\$(argon2(id|i|d)|2[aby]|scrypt|pbkdf2[-\w]*)\$/

const FRAMEWORK_DIR = (() => {
  try {
    return decodeURIComponent(new URL('../', import.meta.url).pathname)
  } catch {
    return undefined
  }
})()
const FRAME = /\(?((?:file:\/\/)?[^()\s]+?):(\d+):(\d+)\)?$/

/** The first stack frame outside the framework, node_modules and the runtime: where the app threw. */
export function appFrame(stack: string | undefined): TraceSourceLocation | null {
  if (stack === undefined) return null
  for (const line of stack.split('\n').slice(1)) {
    const match = FRAME.exec(line.trim())
    if (match === null) continue
    let file = match[1]!
    if (file.startsWith('file://')) file = decodeURIComponent(new URL(file).pathname)
    if (file.startsWith('node:') || file.includes('/node_modules/') || !file.includes('/')) continue
    if (FRAMEWORK_DIR !== undefined && file.startsWith(FRAMEWORK_DIR)) continue
    return { file, line: Number(match[2]), column: Number(match[3]) }
  }
  return null
}
