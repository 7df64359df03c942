/**
 * Capture: the per-request recorder (queries and middleware timings, pushed
 * as they happen, nothing computed) and the snapshot `end()` takes of the
 * request and response. Turning a snapshot into a record (redaction, N+1,
 * bodies) is `buildRecord`, which the writer runs off the request path.
 */
import type { Context } from '../context/context.ts'
import type { QueryRecord } from '../database/database.ts'
import { isHttpError } from '../http/http-error.ts'
import { knownResponseText } from '../http/response.ts'
import type { MiddlewareTiming, RequestRecorder } from './recorder.ts'
import type { TraceConfig } from './config.ts'
import { Redactor } from './redact.ts'
import { emptyBody, type CapturedBody, type TraceException, type TraceQuery, type TraceRecord, type TraceSourceLocation } from './record.ts'
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

/** What `end()` keeps: references, nothing serialised. */
export interface PendingTrace {
  capture: RequestCapture
  c: Context
  durationMs: number
  status: number
  responseHeaders: Headers
  responseBody: string | Promise<BodyRead> | null
  requestBody: Promise<unknown> | Promise<BodyRead> | null
  /** True when `requestBody` resolves to parsed JSON (from `c.body()`), false when to a BodyRead. */
  requestBodyParsed: boolean
}

export function snapshot(c: Context, response: Response, capture: RequestCapture, bodyLimit: number): PendingTrace {
  const parsed = c.parsedBodyIfRead
  let requestBody: PendingTrace['requestBody'] = parsed ?? null
  if (parsed !== undefined) parsed.catch(() => {})
  else if (c.request.body !== null && !c.request.bodyUsed) {
    requestBody = readCapped(c.request.body, bodyLimit)
  }
  return {
    capture,
    c,
    durationMs: performance.now() - capture.startedAt,
    status: response.status,
    responseHeaders: response.headers,
    responseBody: responseBody(response, bodyLimit),
    requestBody,
    requestBodyParsed: parsed !== undefined,
  }
}

function responseBody(response: Response, limit: number): PendingTrace['responseBody'] {
  const known = knownResponseText(response)
  if (known !== undefined) return known
  if (response.body === null || response.bodyUsed) return null
  const type = response.headers.get('content-type') ?? ''
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

/** Builds the stored record: bodies resolved, everything redacted, N+1 detected. */
export async function buildRecord(pending: PendingTrace, config: TraceConfig, memoryMb: number | null): Promise<TraceRecord> {
  const { c, capture } = pending
  const redactor = new Redactor(config.redactHeaders, config.redactFields)
  const headers = redactor.headers(c.request.headers)
  const query = redactor.queryString(c.url.search)
  const body = await requestBody(pending, redactor, config.bodyLimit)
  const responseHeaders = redactor.headers(pending.responseHeaders)
  const responseBodyRead = pending.responseBody === null ? null : await pending.responseBody
  const response = {
    status: pending.status,
    headers: responseHeaders,
    body: capturedText(responseBodyRead, pending.responseHeaders.get('content-type'), redactor, config.bodyLimit),
  }
  const queries: TraceQuery[] = capture.queries.map((q, i) => ({
    sql: q.sql,
    args: plainArgs(q.args),
    duration_ms: q.duration_ms,
    rows: q.rows,
    start_ms: round(Math.max(0, capture.queryEnds[i]! - capture.startedAt - q.duration_ms)),
    last_insert_rowid: q.lastInsertRowid ?? null,
    error: q.error ?? null,
  }))
  const error = c.error
  const record: TraceRecord = {
    trace_id: c.traceId,
    method: c.method,
    path: c.path,
    query,
    route: c.route?.path ?? null,
    status_code: pending.status,
    headers,
    body,
    queries,
    middleware: [...capture.middleware].sort((a, b) => a.start_ms - b.start_ms),
    exception: error === undefined ? null : exceptionOf(error, pending.status),
    trace: error instanceof Error && c.config.debug && error.stack ? error.stack.split('\n').map((line) => line.trim()) : null,
    duration_ms: round(pending.durationMs),
    memory_mb: memoryMb,
    n_plus_one: detectNPlusOne(queries, config.nPlusOneThreshold),
    ip: c.ip ?? null,
    timestamp: new Date(capture.startedEpoch).toISOString(),
    user_id: c.user?.id ?? null,
    response,
  }
  return redactor.scrub(record)
}

async function requestBody(pending: PendingTrace, redactor: Redactor, limit: number): Promise<CapturedBody> {
  if (pending.requestBody === null) return emptyBody()
  if (!pending.requestBodyParsed) {
    return capturedText(await (pending.requestBody as Promise<BodyRead>), pending.c.request.headers.get('content-type'), redactor, limit)
  }
  let value: unknown
  try {
    value = await pending.requestBody
  } catch {
    // body() failed (400/413/415): the bytes are gone, the exception says why.
    return { content: null, size: Number(pending.c.request.headers.get('content-length') ?? 0), truncated: false }
  }
  const redacted = redactor.json(value)
  const text = JSON.stringify(redacted) ?? ''
  const size = Number(pending.c.request.headers.get('content-length') ?? text.length)
  if (text.length <= limit) return { content: redacted, size, truncated: false }
  return { content: text.slice(0, limit), size, truncated: true }
}

function capturedText(read: BodyRead | string | null, type: string | null, redactor: Redactor, limit: number): CapturedBody {
  if (read === null) return emptyBody()
  const { text, size, truncated } =
    typeof read === 'string'
      ? { text: read.length > limit ? read.slice(0, limit) : read, size: read.length, truncated: read.length > limit }
      : read
  if (size === 0) return emptyBody()
  if (!truncated && type !== null && type.includes('json')) {
    try {
      return { content: redactor.json(JSON.parse(text)), size, truncated }
    } catch {
      // not JSON after all: kept as text
    }
  }
  return { content: redactor.text(text), size, truncated }
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
  return value
}

function exceptionOf(error: unknown, status: number): TraceException {
  if (!(error instanceof Error)) {
    return { class: typeof error, message: String(error), status, errors: null, location: null }
  }
  const details = isHttpError(error) ? error.details : undefined
  const errors = details !== undefined && typeof details.errors === 'object' && details.errors !== null ? (details.errors as Record<string, string[]>) : null
  return { class: error.name || error.constructor.name, message: error.message, status, errors, location: appFrame(error.stack) }
}

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
