/**
 * Capture: the per-request recorder (queries and middleware timings, pushed
 * as they happen, nothing computed) and the snapshot `end()` takes of the
 * request and response. Turning a snapshot into a record (redaction, N+1,
 * bodies) is `record-builder.ts`, which the writer runs later, on chunks of them.
 */
import type { ConnInfo } from '../app/conn-info.ts'
import type { Context } from '../context/context.ts'
import type { QueryRecord } from '../database/database.ts'
import { discardRest, MAX_DISCARDED_BYTES, type DrainedRest } from '../http/discard-body.ts'
import { isHttpError } from '../http/http-error.ts'
import { rejectedBodyOf } from '../http/read-json-body.ts'
import { knownResponseHeaders, knownResponseText } from '../http/response.ts'
import type { QuerySite, QuerySites } from './query-site.ts'
import { MAX_TRACE_EVENTS } from './record.ts'
import type { EventTiming, MiddlewareTiming, RequestRecorder } from './recorder.ts'

// Most requests run no query and some no middleware: their lists stay this shared empty one.
const NONE: readonly never[] = Object.freeze([])

export class RequestCapture implements RequestRecorder {
  readonly startedAt = performance.now()
  private queryList: QueryRecord[] | undefined
  private middlewareList: MiddlewareTiming[] | undefined
  private eventList: EventTiming[] | undefined
  /** Events past MAX_TRACE_EVENTS: counted, not kept. */
  eventsOmitted = 0
  /** How many times each statement text was sent so far (query-site.ts). */
  private sent: Map<string, number> | undefined
  /** Set by `recordRefusal` (`app.reject`). */
  refusedBeforeApp = false

  /** With `sites`, each statement gets its call site (`QueryRecord.caller`), for the trace to link its line. */
  constructor(
    private readonly sites?: QuerySites,
    private readonly context?: Pick<Context, 'route'>,
  ) {}

  queryStarted(sql: string): QuerySite | undefined {
    if (this.sites === undefined) return undefined
    const sent = (this.sent ??= new Map())
    const occurrence = sent.get(sql) ?? 0
    sent.set(sql, occurrence + 1)
    return this.sites.at(this.context?.route?.path ?? null, sql, occurrence)
  }

  get queries(): readonly QueryRecord[] {
    return this.queryList ?? NONE
  }

  get middleware(): readonly MiddlewareTiming[] {
    return this.middlewareList ?? NONE
  }

  recordQuery(query: QueryRecord): void {
    ;(this.queryList ??= []).push(query)
  }

  get events(): readonly EventTiming[] {
    return this.eventList ?? NONE
  }

  recordMiddleware(timing: MiddlewareTiming): void {
    ;(this.middlewareList ??= []).push(timing)
  }

  recordEvent(event: EventTiming): void {
    const list = (this.eventList ??= [])
    if (list.length < MAX_TRACE_EVENTS) list.push(event)
    else this.eventsOmitted++
  }

  recordRefusal(): void {
    this.refusedBeforeApp = true
  }
}

/**
 * Epoch ms of a performance.now() reading. A request reads one clock, not
 * two: the wall clock's offset from the monotonic one is read again at most
 * once a second, so a wall-clock adjustment shows within a second.
 */
let clockOffset = 0
let clockOffsetReadAt = Number.NEGATIVE_INFINITY

function epochOf(monotonic: number): number {
  if (monotonic - clockOffsetReadAt > 1000) {
    clockOffsetReadAt = performance.now()
    clockOffset = Date.now() - clockOffsetReadAt
  }
  return Math.round(clockOffset + monotonic)
}

/** A body as read: the text (possibly cut) and the size seen. */
export interface BodyRead {
  text: string
  size: number
  truncated: boolean
  /** The body never completed: the response was sent or the connection closed first. */
  incomplete?: boolean
  /** Counting stopped at MAX_DISCARDED_BYTES: `size` is what was read, the body was at least that. */
  capped?: boolean
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
  /** Stops the tracer's own body reads at once (what arrived is kept, marked incomplete): the writer is closing. */
  abandon: (() => void) | null
  /** When to stop counting the drained rest of a body refused for its size (413): the response done, or the writer closing. */
  restDeadline?: Promise<void> | undefined
}

/**
 * When the tracer stops waiting for a body: the adapter says the response was
 * sent or the connection closed (`connInfo.responseDone`), else the request is
 * aborted (`request.signal`: a client that went away, on runtimes that tell);
 * or the writer is closing.
 */
class ReadDeadline {
  readonly reached: Promise<void>
  readonly stop: () => void

  constructor(request: Request, connInfo: ConnInfo | undefined) {
    let stop!: () => void
    this.reached = new Promise<void>((resolve) => (stop = resolve))
    this.stop = stop
    // The adapter's signal covers a client that went away too; reading `request.signal` would make the Node adapter build an AbortController.
    if (typeof connInfo?.responseDone === 'function') {
      connInfo.responseDone().then(stop, stop)
      return
    }
    try {
      const signal = request.signal
      if (signal.aborted) stop()
      else signal.addEventListener('abort', stop, { once: true })
    } catch {
      // a Request without a signal (some test doubles): the writer's close still ends the wait
    }
  }
}

export function snapshot(c: Context, response: Response, capture: RequestCapture, bodyLimit: number): PendingTrace {
  const request = c.request
  const requestHeaders = adapterHeaders(c.connInfo?.headers) ?? headerRecord(request.headers)
  const parsed = c.parsedBodyIfRead
  let requestBody: PendingTrace['requestBody'] = parsed ?? null
  let deadline: ReadDeadline | undefined
  if (parsed !== undefined) {
    parsed.catch(() => {})
    // A chunked body refused for its size (413): its rest is read and dropped after the answer, and counted, until
    // the response is done (the body ended or its connection closed). Only a 413 the app answered: one it caught
    // and answered otherwise is counted to the limit.
    if (rejectedBodyOf(c.error)?.rest !== undefined) deadline = new ReadDeadline(request, c.connInfo)
  } else if (mayHaveBody(c.method, requestHeaders) && !request.bodyUsed && request.body !== null) {
    // Only now is `body` touched: on the Node adapter that builds the full Request, which a GET must not pay for.
    deadline = new ReadDeadline(request, c.connInfo)
    const declared = requestHeaders['content-length']
    requestBody = readCapped(request.body, bodyLimit, deadline.reached, declared === undefined ? undefined : Number(declared))
  }
  // Headers svc built are kept as given (names lower-cased when the record is built), others copied.
  const responseHeaders = knownResponseHeaders(response) ?? headerRecord(response.headers)
  const knownText = knownResponseText(response)
  let responseBody: Promise<BodyRead> | null = null
  if (knownText === undefined) {
    if (readableResponse(response, responseHeaders['content-type'] ?? '')) {
      deadline ??= new ReadDeadline(request, c.connInfo)
      responseBody = readCapped(response.clone().body!, bodyLimit, deadline.reached)
    }
  }
  const error = c.error
  return {
    raw: {
      trace_id: c.traceId,
      method: c.method,
      path: c.path,
      search: searchOf(request.url),
      route: c.route?.path ?? null,
      ip: c.ip ?? null,
      user_id: c.user?.id ?? null,
      started_epoch: epochOf(capture.startedAt),
      started_at: capture.startedAt,
      duration_ms: performance.now() - capture.startedAt,
      status: response.status,
      debug: c.config.debug,
      request_headers: requestHeaders,
      request_type: requestHeaders['content-type'] ?? null,
      request_body: { kind: 'none' },
      response_headers: responseHeaders,
      response_type: responseHeaders['content-type'] ?? null,
      response_body: knownText === undefined ? null : { text: knownText, size: knownText.length, truncated: false },
      // The statements as the database handle reported them (plain data, never changed), in a list of
      // their own: one a handler left running may still report after the response.
      queries: capture.queries.length === 0 ? capture.queries : capture.queries.slice(),
      middleware: capture.middleware,
      // A copy, as for queries: a listener a handler left running may still report after the response.
      events: capture.events.length === 0 ? capture.events : capture.events.slice(),
      events_omitted: capture.eventsOmitted,
      error: error === undefined ? null : rawError(error),
      refused_before_app: capture.refusedBeforeApp,
    },
    requestBody,
    requestBodyParsed: parsed !== undefined,
    responseBody,
    abandon: deadline?.stop ?? null,
    restDeadline: parsed === undefined ? undefined : deadline?.reached,
  }
}

function headerRecord(headers: Headers): Record<string, string> {
  const record: Record<string, string> = {}
  headers.forEach((value, name) => (record[name] = value))
  return record
}

/**
 * The request's headers as the runtime adapter parsed them (`connInfo.headers`,
 * lower-case names, as svc's Node adapter passes Node's own): copying them
 * from `Headers` would make Node build a Headers object for every request.
 * Kept as is when every value is a string; pseudo-headers are left out.
 */
function adapterHeaders(headers: Readonly<Record<string, unknown>> | undefined): Record<string, string> | undefined {
  if (typeof headers !== 'object' || headers === null) return undefined
  const source = headers as Record<string, unknown>
  for (const name in source) {
    if (typeof source[name] !== 'string' || name.charCodeAt(0) === 58 /* ':' */) return normalisedHeaders(source)
  }
  return source as Record<string, string>
}

function normalisedHeaders(source: Record<string, unknown>): Record<string, string> {
  const record: Record<string, string> = {}
  for (const name in source) {
    const value = source[name]
    if (name.startsWith(':')) continue
    if (typeof value === 'string') record[name] = value
    else if (Array.isArray(value)) record[name] = value.join(', ')
  }
  return record
}

function mayHaveBody(method: string, headers: Record<string, string>): boolean {
  if (method === 'GET' || method === 'HEAD') return false
  const length = headers['content-length']
  if (length !== undefined) return length !== '0'
  // A Request built in process may carry a body without either header; a body without a type is not read.
  return headers['transfer-encoding'] !== undefined || headers['content-type'] !== undefined
}

function readableResponse(response: Response, type: string): boolean {
  if (response.body === null || response.bodyUsed) return false
  // Streams (server-sent events...) are never teed: they may not end.
  return !type.includes('event-stream') && /json|text|xml|x-www-form-urlencoded/.test(type)
}

const STOPPED: unique symbol = Symbol('stopped')

/**
 * Reads a body to its end, keeping its first `limit` bytes and counting all
 * of them: the trace says how big the body was, not how much of it came
 * before an early answer (a 500 kB body after a 401 read "65297 bytes in
 * all"). Stops when `stop` resolves: then it is incomplete, unless the
 * `expected` bytes (Content-Length) all came and only the stream's end was
 * still on its way; and beyond MAX_DISCARDED_BYTES, as the adapter's drain.
 */
async function readCapped(stream: ReadableStream<Uint8Array>, limit: number, stop: Promise<void>, expected?: number): Promise<BodyRead> {
  const reader = stream.getReader()
  const stopped = stop.then((): typeof STOPPED => STOPPED)
  const chunks: Uint8Array[] = []
  let size = 0
  let kept = 0
  let truncated = false
  let incomplete = false
  let capped = false
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), stopped])
      if (next === STOPPED) {
        if (expected !== undefined && size >= expected) {
          void reader.cancel().catch(() => {})
          break
        }
        // The answer is sent and the client may still be sending: the rest is read and dropped, not cancelled,
        // so the client can finish and read its answer (discard-body.ts).
        discardRest(reader)
        incomplete = true
        truncated = true
        break
      }
      const { done, value } = next
      if (done) break
      size += value.byteLength
      if (kept < limit) {
        const take = value.subarray(0, limit - kept)
        chunks.push(take)
        kept += take.byteLength
      }
      // Past the limit the rest is still read, counted and dropped.
      if (size > limit) truncated = true
      if (size > MAX_DISCARDED_BYTES) {
        void reader.cancel().catch(() => {})
        incomplete = true
        capped = true
        break
      }
    }
  } catch {
    // The stream failed (the client went away mid-body): what arrived is kept.
    truncated = true
    incomplete = true
  }
  const bytes = new Uint8Array(kept)
  let offset = 0
  for (const chunk of chunks) {
    bytes.set(chunk, offset)
    offset += chunk.byteLength
  }
  const text = new TextDecoder().decode(bytes)
  if (capped) return { text, size, truncated, incomplete, capped }
  return incomplete ? { text, size, truncated, incomplete } : { text, size, truncated }
}

/** A request body as extracted: parsed JSON from `c.body()`, text read by the tracer, or nothing. */
export type RawBody =
  | { kind: 'none' }
  | { kind: 'json'; value: unknown; size: number }
  | { kind: 'failed'; size: number; incomplete?: boolean; capped?: boolean }
  | { kind: 'text'; text: string; size: number; truncated: boolean; incomplete?: boolean; refused?: boolean }

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
  /** performance.now() when the request began: what query start times are offsets from. */
  started_at: number
  duration_ms: number
  status: number
  debug: boolean
  request_headers: Record<string, string>
  request_type: string | null
  request_body: RawBody
  /** Names as the response was given them (any case); the record lower-cases them. */
  response_headers: Readonly<Record<string, string>>
  response_type: string | null
  response_body: BodyRead | null
  queries: readonly QueryRecord[]
  middleware: readonly MiddlewareTiming[]
  /** `emit(event, c)` calls, each with its listeners (plain data). */
  events: readonly EventTiming[]
  events_omitted: number
  error: { class: string; message: string; stack: string | null; errors: Record<string, string[]> | null } | null
  /** The runtime refused the request before the app saw it (`app.reject`). */
  refused_before_app: boolean
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
    // Nothing read of a body that never completed is still a body (the answer or a hang-up came first), not none.
    return read.size === 0 && read.incomplete !== true ? { kind: 'none' } : { kind: 'text', ...read }
  }
  try {
    return { kind: 'json', value: await pending.requestBody, size: declared }
  } catch (error) {
    // body() refused it (400, 415: the text it read, redacted when built; 413: only its size), so that replay resends it;
    // a body the client stopped sending is kept as far as it came: incomplete, and so not whole.
    const rejected = rejectedBodyOf(error)
    if (rejected === undefined) return { kind: 'failed', size: declared }
    if (rejected.text === null) return rejected.rest === undefined ? { kind: 'failed', size: rejected.size } : await tooLargeBody(rejected.size, rejected.rest, pending.restDeadline)
    return { kind: 'text', text: rejected.text, size: rejected.size, truncated: rejected.incomplete, incomplete: rejected.incomplete, refused: true }
  }
}

/**
 * A body refused for its size whose rest was drained (a chunked 413): its size
 * is what the client sent, the bytes read to the limit and the rest, as for a
 * body answered early (readCapped). Counted until the drain ends, or the
 * response is done: the body has then ended (or its connection closed), and
 * what it still holds is read in a moment; a drain still reading after that
 * (the writer closing) is incomplete. Past MAX_DISCARDED_BYTES it is capped.
 */
async function tooLargeBody(readToLimit: number, rest: DrainedRest, deadline: Promise<void> | undefined): Promise<RawBody> {
  if (deadline !== undefined) await Promise.race([rest.done, deadline])
  if (rest.end === undefined) await new Promise((resolve) => setTimeout(resolve, 0))
  const size = readToLimit + rest.bytes
  if (rest.end === 'capped') return { kind: 'failed', size, capped: true }
  if (rest.end === undefined || rest.end === 'failed') return { kind: 'failed', size, incomplete: true }
  return { kind: 'failed', size }
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
