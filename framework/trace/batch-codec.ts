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
 * write is one short string per request instead of its record, so little
 * survives until the batch is written (the garbage collector copies every
 * object that does).
 */
export class BatchEncoder {
  private readonly parts: string[] = []
  private previous: TraceRecord | undefined
  private firstAt = Number.POSITIVE_INFINITY
  private lastAt = Number.NEGATIVE_INFINITY

  get count(): number {
    return this.parts.length
  }

  add(record: TraceRecord, startedAt: number): void {
    this.parts.push(this.previous === undefined ? wholeJson(record) : patchJson(this.previous, record))
    this.previous = record
    if (startedAt < this.firstAt) this.firstAt = startedAt
    if (startedAt > this.lastAt) this.lastAt = startedAt
  }

  finish(): EncodedBatch {
    return { data: `{"format":${BATCH_FORMAT},"records":[${this.parts.join(',')}]}`, count: this.parts.length, first_at: this.firstAt, last_at: this.lastAt }
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
 * The patch as JSON text, field by field (the writer's hottest code: no
 * patch object is made, no field is looked up by a computed name). A test
 * round-trips records that differ in every field.
 */
function patchJson(p: TraceRecord, r: TraceRecord): string {
  const json =
    (p.trace_id === r.trace_id ? '' : value('trace_id', r.trace_id)) +
    (p.method === r.method ? '' : value('method', r.method)) +
    (p.path === r.path ? '' : value('path', r.path)) +
    (p.query === r.query ? '' : value('query', r.query)) +
    (p.route === r.route ? '' : value('route', r.route)) +
    (p.status_code === r.status_code ? '' : value('status_code', r.status_code)) +
    changed('headers', p.headers, r.headers) +
    changed('body', p.body, r.body) +
    changed('queries', p.queries, r.queries) +
    changed('middleware', p.middleware, r.middleware) +
    changed('exception', p.exception, r.exception) +
    changed('trace', p.trace, r.trace) +
    (p.duration_ms === r.duration_ms ? '' : value('duration_ms', r.duration_ms)) +
    (p.memory_mb === r.memory_mb ? '' : value('memory_mb', r.memory_mb)) +
    changed('n_plus_one', p.n_plus_one, r.n_plus_one) +
    (p.ip === r.ip ? '' : value('ip', r.ip)) +
    (p.timestamp === r.timestamp ? '' : value('timestamp', r.timestamp)) +
    (p.user_id === r.user_id ? '' : value('user_id', r.user_id)) +
    responseChanged(p, r)
  return `{${json.slice(1)}}`
}

// patchJson must compare every field: one left out would silently take the previous record's value.
type ComparedField = 'trace_id' | 'method' | 'path' | 'query' | 'route' | 'status_code' | 'headers' | 'body' | 'queries' | 'middleware' | 'exception' | 'trace' | 'duration_ms' | 'memory_mb' | 'n_plus_one' | 'ip' | 'timestamp' | 'user_id' | 'response'
const everyFieldCompared: [Exclude<keyof TraceRecord, ComparedField>] extends [never] ? true : never = true
void everyFieldCompared

function changed(name: string, previous: unknown, next: unknown): string {
  return sameJson(previous, next) ? '' : value(name, next)
}

function value(name: string, next: unknown): string {
  // A finite number prints as JSON.stringify would print it, without the call.
  return `,"${name}":${typeof next === 'number' && Number.isFinite(next) ? String(next) : JSON.stringify(next)}`
}

function responseChanged(p: TraceRecord, r: TraceRecord): string {
  const json =
    (p.response.status === r.response.status ? '' : value('status', r.response.status)) +
    (sameHeaders(p.response.headers, p.trace_id, r.response.headers, r.trace_id) ? '' : `,"headers":${JSON.stringify(storedHeaders(r.response.headers, r.trace_id))}`) +
    changed('body', p.response.body, r.response.body)
  return json === '' ? '' : `,"response":{${json.slice(1)}}`
}

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
