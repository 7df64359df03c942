/**
 * How a batch of trace records is stored: the first record whole, every
 * next one as a patch holding only the top-level fields that differ from
 * the record before it (and, inside `response`, only the differing status,
 * headers or body). Requests in one batch mostly repeat one another (same
 * headers, same route, same response), so a batch is a fraction of the size
 * of its records side by side, and the writer serialises only what changed:
 * bytes written and JSON built are most of what tracing costs a request.
 *
 *   {"format":2,"records":[{…record…},{"trace_id":"svc_…","duration_ms":0.4,…},…]}
 *
 * One more rule: a response header whose value is the record's own trace id
 * (svc's X-Service-Trace-Id) is stored as `true`, so that it does not make
 * every response differ from the one before.
 *
 * The older format, a plain JSON array of whole records, is still read.
 */
import type { TraceRecord, TraceResponse } from './record.ts'

export const BATCH_FORMAT = 2

/** Response headers as stored: `true` stands for the record's trace id. */
type StoredHeaders = Record<string, string | true>

/** What a stored patch holds (what differs from the record before). */
type RecordPatch = Partial<Omit<TraceRecord, 'response'>> & { response?: Partial<Omit<TraceResponse, 'headers'>> & { headers?: StoredHeaders } }

/** The stored JSON, parsed. */
interface StoredBatch {
  format: typeof BATCH_FORMAT
  records: RecordPatch[]
}

/** A batch ready to store: its JSON text, how many records, and the first and last start times (epoch ms). */
export interface EncodedBatch {
  data: string
  count: number
  first_at: number
  last_at: number
}

/**
 * Encodes records one at a time, as each request ends: what waits for the
 * write is a few short strings per request instead of its record, so little
 * survives until the batch is written (the garbage collector copies every
 * object that does). The pieces are joined once, when the batch is full.
 */
export class BatchEncoder {
  private readonly pieces: string[] = []
  private records = 0
  private previous: TraceRecord | undefined
  private firstAt = Number.POSITIVE_INFINITY
  private lastAt = Number.NEGATIVE_INFINITY

  get count(): number {
    return this.records
  }

  add(record: TraceRecord, startedAt: number): void {
    if (this.previous === undefined) this.pieces.push(wholeJson(record))
    else {
      this.pieces.push(',')
      writePatch(this.pieces, this.previous, record)
    }
    this.records++
    this.previous = record
    if (startedAt < this.firstAt) this.firstAt = startedAt
    if (startedAt > this.lastAt) this.lastAt = startedAt
  }

  finish(): EncodedBatch {
    return { data: `{"format":${BATCH_FORMAT},"records":[${this.pieces.join('')}]}`, count: this.records, first_at: this.firstAt, last_at: this.lastAt }
  }
}

/** Records (with their start times, epoch ms) as one batch. */
export function encodeBatch(records: readonly TraceRecord[], startedAt: readonly number[]): EncodedBatch {
  const encoder = new BatchEncoder()
  for (let i = 0; i < records.length; i++) encoder.add(records[i]!, startedAt[i]!)
  return encoder.finish()
}

/**
 * The records of a stored batch, in the order they were written. Records of
 * one batch may share nested objects (a header map that did not change):
 * treat them as read-only.
 */
export function decodeBatch(text: string): TraceRecord[] {
  const parsed = JSON.parse(text) as TraceRecord[] | StoredBatch
  if (Array.isArray(parsed)) return parsed
  if (parsed === null || typeof parsed !== 'object' || parsed.format !== BATCH_FORMAT || !Array.isArray(parsed.records)) {
    throw new TypeError(`unknown trace batch format ${JSON.stringify((parsed as { format?: unknown } | null)?.format)}`)
  }
  const records: TraceRecord[] = []
  let previous: TraceRecord | undefined
  let storedHeaders: StoredHeaders = {}
  for (const patch of parsed.records) {
    if (patch.response?.headers !== undefined) storedHeaders = patch.response.headers
    const merged = (previous === undefined ? patch : { ...previous, ...patch }) as TraceRecord
    merged.response = { ...previous?.response, ...(patch.response as TraceResponse), headers: responseHeaders(storedHeaders, merged.trace_id) }
    records.push(merged)
    previous = merged
  }
  return records
}

function responseHeaders(stored: StoredHeaders, traceId: string): Record<string, string> {
  let headers: Record<string, string> | undefined
  for (const name in stored) if (stored[name] === true) (headers ??= { ...(stored as Record<string, string>) })[name] = traceId
  return headers ?? (stored as Record<string, string>)
}

function storedHeaders(headers: Readonly<Record<string, string>>, traceId: string): StoredHeaders {
  let stored: StoredHeaders | undefined
  for (const name in headers) if (headers[name] === traceId) (stored ??= { ...headers })[name] = true
  return stored ?? headers
}

function wholeJson(record: TraceRecord): string {
  return JSON.stringify({ ...record, response: { ...record.response, headers: storedHeaders(record.response.headers, record.trace_id) } })
}

/**
 * Writes the patch as JSON pieces, field by field (the writer's hottest
 * code: no patch object is made, no field is looked up by a computed name,
 * no string is built only to be copied again). A test round-trips records
 * that differ in every field.
 */
function writePatch(out: string[], p: TraceRecord, r: TraceRecord): void {
  out.push('{')
  const first = out.length
  if (p.trace_id !== r.trace_id) out.push(',"trace_id":', JSON.stringify(r.trace_id))
  if (p.method !== r.method) out.push(',"method":', JSON.stringify(r.method))
  if (p.path !== r.path) out.push(',"path":', JSON.stringify(r.path))
  if (p.query !== r.query) out.push(',"query":', JSON.stringify(r.query))
  if (p.route !== r.route) out.push(',"route":', JSON.stringify(r.route))
  if (p.status_code !== r.status_code) out.push(',"status_code":', jsonValue(r.status_code))
  if (!sameJson(p.headers, r.headers)) out.push(',"headers":', JSON.stringify(r.headers))
  if (!sameJson(p.body, r.body)) out.push(',"body":', JSON.stringify(r.body))
  if (!sameJson(p.queries, r.queries)) out.push(',"queries":', JSON.stringify(r.queries))
  if (!sameJson(p.middleware, r.middleware)) out.push(',"middleware":', JSON.stringify(r.middleware))
  if (!sameJson(p.exception, r.exception)) out.push(',"exception":', JSON.stringify(r.exception))
  if (!sameJson(p.trace, r.trace)) out.push(',"trace":', JSON.stringify(r.trace))
  if (p.duration_ms !== r.duration_ms) out.push(',"duration_ms":', jsonValue(r.duration_ms))
  if (p.memory_mb !== r.memory_mb) out.push(',"memory_mb":', jsonValue(r.memory_mb))
  if (!sameJson(p.n_plus_one, r.n_plus_one)) out.push(',"n_plus_one":', JSON.stringify(r.n_plus_one))
  if (p.ip !== r.ip) out.push(',"ip":', JSON.stringify(r.ip))
  if (p.timestamp !== r.timestamp) out.push(',"timestamp":', JSON.stringify(r.timestamp))
  if (p.user_id !== r.user_id) out.push(',"user_id":', jsonValue(r.user_id))
  writeResponsePatch(out, p, r)
  // The first field written carries no leading comma.
  if (out.length > first) out[first] = out[first]!.slice(1)
  out.push('}')
}

function writeResponsePatch(out: string[], p: TraceRecord, r: TraceRecord): void {
  const opener = out.length
  out.push(',"response":{')
  const first = out.length
  const previous = p.response
  const response = r.response
  if (previous.status !== response.status) out.push(',"status":', jsonValue(response.status))
  if (!sameHeaders(previous.headers, p.trace_id, response.headers, r.trace_id)) out.push(',"headers":', JSON.stringify(storedHeaders(response.headers, r.trace_id)))
  if (!sameJson(previous.body, response.body)) out.push(',"body":', JSON.stringify(response.body))
  if (out.length === first) {
    out.length = opener
    return
  }
  out[first] = out[first]!.slice(1)
  out.push('}')
}

/** JSON.stringify's text, without the call for a finite number (the common case: durations). */
function jsonValue(value: unknown): string {
  return typeof value === 'number' && Number.isFinite(value) ? String(value) : JSON.stringify(value)
}

// writePatch must compare every field: one left out would silently take the previous record's value.
type ComparedField = 'trace_id' | 'method' | 'path' | 'query' | 'route' | 'status_code' | 'headers' | 'body' | 'queries' | 'middleware' | 'exception' | 'trace' | 'duration_ms' | 'memory_mb' | 'n_plus_one' | 'ip' | 'timestamp' | 'user_id' | 'response'
const everyFieldCompared: [Exclude<keyof TraceRecord, ComparedField>] extends [never] ? true : never = true
void everyFieldCompared

/** Equal once each record's trace id is replaced by the marker. */
function sameHeaders(a: Readonly<Record<string, string>>, aTraceId: string, b: Readonly<Record<string, string>>, bTraceId: string): boolean {
  let count = 0
  for (const name in a) {
    const x = a[name]
    const y = b[name]
    if (x !== y && !(x === aTraceId && y === bTraceId)) return false
    count++
  }
  for (const _ in b) count--
  return count === 0
}

/** Equal as JSON texts would be: same values, same keys in the same order. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false
    return true
  }
  if (Array.isArray(b)) return false
  const aKeys = Object.keys(a)
  const bKeys = Object.keys(b)
  if (aKeys.length !== bKeys.length) return false
  for (let i = 0; i < aKeys.length; i++) {
    const key = aKeys[i]!
    if (key !== bKeys[i] || !sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false
  }
  return true
}
