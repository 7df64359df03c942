/**
 * How a batch of trace records is stored: the first record whole, every
 * next one as a patch holding only the top-level fields that differ from
 * the record before it (and, inside `response`, only the differing status,
 * headers or body). Requests in one batch mostly repeat one another (same
 * headers, same route, same response), so a batch is a fraction of the size
 * of its records side by side, and the writer serialises only what changed:
 * bytes written and JSON built are most of what tracing costs a request.
 *
 *   {"format":3,"records":[{…record…},{"trace_id":"svc_…","duration_us":412,…},…]}
 *
 * Two more rules:
 * - a response header whose value is the record's own trace id (svc's
 *   X-Service-Trace-Id) is stored as `true`, so that it does not make every
 *   response differ from the one before;
 * - times are whole microseconds, written in a patch as integers (a
 *   fraction costs ten times as much to write): `"duration_us":412` for
 *   `duration_ms` 0.412, and, when a record ran the same statements as the
 *   one before (same SQL, arguments, rows, rowid and error: a route
 *   requested again), only their timings, `"query_us":[duration, start, …]`.
 *
 * Older formats are still read: 2 (patches without `_us` fields) and 1, a
 * plain JSON array of whole records.
 */
import type { CapturedBody, TraceQuery, TraceRecord, TraceResponse } from './record.ts'

export const BATCH_FORMAT = 3
/** Formats `decodeBatch` reads besides the array of format 1: every one before the current is a subset of it. */
const READABLE_FORMATS: readonly number[] = [2, BATCH_FORMAT]

/** Response headers as stored: `true` stands for the record's trace id. */
type StoredHeaders = Record<string, string | true>

/** What a stored patch holds (what differs from the record before). */
type RecordPatch = Partial<Omit<TraceRecord, 'response'>> & {
  response?: Partial<Omit<TraceResponse, 'headers'>> & { headers?: StoredHeaders }
  /** The new timings of the previous record's statements, in microseconds: duration, start, duration, start... */
  query_us?: number[]
  /** `duration_ms` in whole microseconds. */
  duration_us?: number
}

/** The stored JSON, parsed. */
interface StoredBatch {
  format: number
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
 * write is a few short strings per request instead of its record. Every
 * `JOIN_EVERY` records the pieces are joined and copied, as UTF-8, into a
 * byte buffer outside the JavaScript heap: what a batch has encoded so far
 * is then nothing the garbage collector copies. Kept as strings, the open
 * batch (tens of kilobytes) was a large part of what survived each
 * young-generation collection (docs/benchmarks.md, "Fourth pass").
 */
export class BatchEncoder {
  private readonly bytes = new ByteBuffer()
  private pieces: string[] = []
  /** Characters in `pieces`, not yet in `bytes`. */
  private piecesLength = 0
  private records = 0
  private previous: TraceRecord | undefined
  private firstAt = Number.POSITIVE_INFINITY
  private lastAt = Number.NEGATIVE_INFINITY

  get count(): number {
    return this.records
  }

  /** About how large the batch's text is so far (bytes encoded, plus characters not yet encoded). */
  get size(): number {
    return this.bytes.size + this.piecesLength
  }

  add(record: TraceRecord, startedAt: number): void {
    const piece = this.previous === undefined ? wholeJson(record) : `,{"trace_id":${jsonString(record.trace_id)}${patchFields(this.previous, record)}}`
    this.pieces.push(piece)
    this.piecesLength += piece.length
    if (this.pieces.length >= JOIN_EVERY) {
      this.bytes.write(this.pieces.join(''))
      this.pieces = []
      this.piecesLength = 0
    }
    this.records++
    this.previous = record
    if (startedAt < this.firstAt) this.firstAt = startedAt
    if (startedAt > this.lastAt) this.lastAt = startedAt
  }

  finish(): EncodedBatch {
    const records = `${this.bytes.text()}${this.pieces.join('')}`
    return { data: `{"format":${BATCH_FORMAT},"records":[${records}]}`, count: this.records, first_at: this.firstAt, last_at: this.lastAt }
  }
}

const JOIN_EVERY = 16

const utf8 = new TextEncoder()
const utf8Text = new TextDecoder()

/** Text kept as UTF-8 in a growing byte array (off the JavaScript heap). */
class ByteBuffer {
  private buffer = new Uint8Array(0)
  private length = 0

  get size(): number {
    return this.length
  }

  write(text: string): void {
    let rest = text
    for (;;) {
      const { read, written } = utf8.encodeInto(rest, this.buffer.subarray(this.length))
      this.length += written
      if (read === rest.length) return
      rest = rest.slice(read)
      // At least 4 bytes more: a character that did not fit takes up to 4.
      const grown = new Uint8Array(Math.max(16_384, this.buffer.length * 2, this.length + rest.length * 3 + 4))
      grown.set(this.buffer.subarray(0, this.length))
      this.buffer = grown
    }
  }

  text(): string {
    return this.length === 0 ? '' : utf8Text.decode(this.buffer.subarray(0, this.length))
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
  if (Array.isArray(parsed)) {
    for (const record of parsed) {
      completeBody(record.body)
      completeBody(record.response?.body)
      withSources(record)
      withEvents(record)
    }
    return parsed
  }
  if (parsed === null || typeof parsed !== 'object' || !READABLE_FORMATS.includes(parsed.format) || !Array.isArray(parsed.records)) {
    throw new TypeError(`unknown trace batch format ${JSON.stringify((parsed as { format?: unknown } | null)?.format)}`)
  }
  const records: TraceRecord[] = []
  let previous: TraceRecord | undefined
  let storedHeaders: StoredHeaders = {}
  for (const stored of parsed.records) {
    const { query_us: queryTimings, duration_us: durationUs } = stored
    const patch = queryTimings === undefined && durationUs === undefined ? stored : withoutMicroseconds(stored)
    if (patch.response?.headers !== undefined) storedHeaders = patch.response.headers
    completeBody(patch.body)
    completeBody(patch.response?.body)
    const merged = (previous === undefined ? patch : { ...previous, ...patch }) as TraceRecord
    merged.response = { ...previous?.response, ...(patch.response as TraceResponse), headers: responseHeaders(storedHeaders, merged.trace_id) }
    if (queryTimings !== undefined) merged.queries = retimed(previous?.queries, queryTimings)
    if (durationUs !== undefined) merged.duration_ms = durationUs / 1000
    if (patch.queries !== undefined || patch.n_plus_one !== undefined) withSources(merged)
    withEvents(merged)
    records.push(merged)
    previous = merged
  }
  return records
}

/** Records written before statements had a `source` say null: fields are never missing. */
function withSources(record: TraceRecord): void {
  for (const query of record.queries ?? []) if (query.source === undefined) query.source = null
  for (const finding of record.n_plus_one ?? []) if (finding.source === undefined) finding.source = null
}

/** Records written before svc recorded events read as having emitted none: fields are never missing. */
function withEvents(record: TraceRecord): void {
  if (record.events === undefined) record.events = []
  if (record.events_omitted === undefined) record.events_omitted = 0
}

/** Bodies stored before `incomplete` existed read as complete. */
function completeBody(body: CapturedBody | undefined): void {
  if (body !== undefined && body !== null && body.incomplete === undefined) body.incomplete = false
}

function withoutMicroseconds(stored: RecordPatch): RecordPatch {
  const { query_us: _queries, duration_us: _duration, ...patch } = stored
  return patch
}

/** The previous record's statements with the timings of a `query_us` patch. */
function retimed(queries: readonly TraceQuery[] | undefined, microseconds: number[]): TraceQuery[] {
  if (queries === undefined || !Array.isArray(microseconds) || microseconds.length !== queries.length * 2) {
    throw new TypeError('corrupt trace batch: query timings without the statements they belong to')
  }
  return queries.map((query, i) => ({ ...query, duration_ms: microseconds[2 * i]! / 1000, start_ms: microseconds[2 * i + 1]! / 1000 }))
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
 * The fields of a patch after its trace id (which every patch carries: no
 * two records share one), as JSON, each starting with a comma (the writer's
 * hottest code: no patch object is made, no field is looked up by a
 * computed name). A test round-trips records that differ in every field.
 */
function patchFields(p: TraceRecord, r: TraceRecord): string {
  let json = ''
  if (p.method !== r.method) json += `,"method":${JSON.stringify(r.method)}`
  if (p.path !== r.path) json += `,"path":${JSON.stringify(r.path)}`
  if (p.query !== r.query) json += `,"query":${JSON.stringify(r.query)}`
  if (p.route !== r.route) json += `,"route":${JSON.stringify(r.route)}`
  if (p.status_code !== r.status_code) json += `,"status_code":${jsonValue(r.status_code)}`
  if (!sameJson(p.headers, r.headers)) json += `,"headers":${JSON.stringify(r.headers)}`
  if (!sameJson(p.body, r.body)) json += `,"body":${JSON.stringify(r.body)}`
  if (p.queries !== r.queries) json += queriesField(p.queries, r.queries)
  if (!sameJson(p.middleware, r.middleware)) json += `,"middleware":${JSON.stringify(r.middleware)}`
  if (!sameJson(p.exception, r.exception)) json += `,"exception":${JSON.stringify(r.exception)}`
  if (p.events !== r.events && !sameJson(p.events, r.events)) json += `,"events":${JSON.stringify(r.events)}`
  if (p.events_omitted !== r.events_omitted) json += `,"events_omitted":${jsonValue(r.events_omitted)}`
  // Records of one batch are all built by one svc: a record without the mark never follows one with it.
  if (p.refused_before_app !== r.refused_before_app) json += `,"refused_before_app":${r.refused_before_app === true}`
  if (!sameJson(p.trace, r.trace)) json += `,"trace":${JSON.stringify(r.trace)}`
  if (p.duration_ms !== r.duration_ms) json += durationField(r.duration_ms)
  if (p.memory_mb !== r.memory_mb) json += `,"memory_mb":${jsonValue(r.memory_mb)}`
  if (!sameJson(p.n_plus_one, r.n_plus_one)) json += `,"n_plus_one":${JSON.stringify(r.n_plus_one)}`
  if (p.ip !== r.ip) json += `,"ip":${JSON.stringify(r.ip)}`
  if (p.timestamp !== r.timestamp) json += `,"timestamp":${jsonString(r.timestamp)}`
  if (p.user_id !== r.user_id) json += `,"user_id":${jsonValue(r.user_id)}`
  const response = responseFields(p, r)
  if (response !== '') json += `,"response":{${response.slice(1)}}`
  return json
}

function responseFields(p: TraceRecord, r: TraceRecord): string {
  const previous = p.response
  const response = r.response
  let json = ''
  if (previous.status !== response.status) json += `,"status":${jsonValue(response.status)}`
  if (!sameHeaders(previous.headers, p.trace_id, response.headers, r.trace_id)) json += `,"headers":${JSON.stringify(storedHeaders(response.headers, r.trace_id))}`
  if (!sameJson(previous.body, response.body)) json += `,"body":${JSON.stringify(response.body)}`
  return json
}

/**
 * The statements of a record as a patch field: nothing when they equal the
 * previous record's, only their timings when only those changed, else all of them.
 */
function queriesField(previous: readonly TraceQuery[], queries: readonly TraceQuery[]): string {
  if (!sameStatements(previous, queries)) return `,"queries":${JSON.stringify(queries)}`
  let timings = ''
  let changed = false
  for (let i = 0; i < queries.length; i++) {
    const { duration_ms: duration, start_ms: start } = queries[i]!
    const durationUs = microseconds(duration)
    const startUs = microseconds(start)
    // Any other value is stored as it is, with its statement.
    if (durationUs === undefined || startUs === undefined) return `,"queries":${JSON.stringify(queries)}`
    changed ||= duration !== previous[i]!.duration_ms || start !== previous[i]!.start_ms
    timings += `,${durationUs},${startUs}`
  }
  return changed ? `,"query_us":[${timings.slice(1)}]` : ''
}

/** The same statements, in the same order, with the same outcome (timings aside). */
function sameStatements(a: readonly TraceQuery[], b: readonly TraceQuery[]): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!
    const y = b[i]!
    if (x.sql !== y.sql || x.rows !== y.rows || x.last_insert_rowid !== y.last_insert_rowid || x.error !== y.error || !sameJson(x.args, y.args)) return false
    if (x.source !== y.source && !sameJson(x.source, y.source)) return false
  }
  return true
}

/** Whole microseconds of a time in ms, when it is one (svc rounds its timings so); else undefined. */
function microseconds(ms: number): number | undefined {
  const us = Math.round(ms * 1000)
  return us / 1000 === ms ? us : undefined
}

/** A request's duration as a patch field: whole microseconds as an integer (`duration_us`), which is cheaper to write and read than a fraction. */
function durationField(ms: number): string {
  const us = microseconds(ms)
  return us === undefined ? `,"duration_ms":${jsonValue(ms)}` : `,"duration_us":${us}`
}

// Trace ids and timestamps need no escaping: quoting them costs a tenth of JSON.stringify.
const PLAIN_JSON_STRING = /^[\w.:+-]*$/

function jsonString(value: string): string {
  return PLAIN_JSON_STRING.test(value) ? `"${value}"` : JSON.stringify(value)
}

/** JSON.stringify's text, without the call for a finite number. */
function jsonValue(value: unknown): string {
  return typeof value === 'number' && Number.isFinite(value) ? String(value) : JSON.stringify(value)
}

// patchFields must compare every field: one left out would silently take the previous record's value.
type ComparedField = 'trace_id' | 'method' | 'path' | 'query' | 'route' | 'status_code' | 'headers' | 'body' | 'queries' | 'middleware' | 'exception' | 'events' | 'events_omitted' | 'refused_before_app' | 'trace' | 'duration_ms' | 'memory_mb' | 'n_plus_one' | 'ip' | 'timestamp' | 'user_id' | 'response'
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
