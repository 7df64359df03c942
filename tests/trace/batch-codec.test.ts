import { describe, expect, it } from 'vitest'
import { createRecordBuilder, decodeBatch, encodeBatch, REDACTED, resolveTraceConfig, type TraceRecord } from 'svc/trace'
import { rawTrace, traceRecord } from './helpers.ts'

const record = traceRecord

/** The same record with every field changed. */
function everythingChanged(n: number): TraceRecord {
  const traceId = `svc_${String(n).padStart(32, 'f')}`
  return {
    trace_id: traceId,
    method: 'POST',
    path: '/api/posts/7',
    query: 'a=1',
    route: '/api/posts/{id}',
    status_code: 500,
    headers: { host: 'example.test', 'x-request': 'other' },
    body: { content: { title: 'T' }, size: 13, truncated: false, incomplete: false },
    queries: [{ sql: 'select 1', args: [1], duration_ms: 0.1, rows: 1, start_ms: 0.2, last_insert_rowid: null, error: null, source: { file: '/app/x.ts', line: 2, column: 5 } }],
    middleware: [{ name: 'auth', start_ms: 0.01, duration_ms: 0.5, called_next: true }],
    exception: { class: 'TypeError', message: 'kaput', status: 500, errors: null, location: { file: '/app/x.ts', line: 3, column: 9 } },
    events: [{ name: 'TaskCreated', start_ms: 0.3, duration_ms: 0.2, listeners: [{ name: 'log-task', queued: false, duration_ms: 0.1, error: 'kaput' }, { name: 'mail-owner', queued: true, duration_ms: null, error: null }] }],
    events_omitted: 3,
    refused_before_app: true,
    trace: ['TypeError: kaput', 'at x (/app/x.ts:3:9)'],
    duration_ms: 9.75,
    memory_mb: 61.5,
    n_plus_one: [{ shape: 'select ?', count: 6, total_ms: 1.2, source: null }],
    ip: '10.0.0.9',
    timestamp: '2027-01-01T00:00:00.000Z',
    user_id: 42,
    response: { status: 500, headers: { 'content-type': 'text/plain', 'x-service-trace-id': traceId }, body: { content: 'oops', size: 4, truncated: true, incomplete: false } },
  }
}

const roundTrip = (records: TraceRecord[]) => decodeBatch(encodeBatch(records, records.map((r) => Date.parse(r.timestamp))).data)

describe('batch codec', () => {
  it('round-trips records that differ in every field, keys in their order', () => {
    const records = [record(1), everythingChanged(2), record(3), record(4, { user_id: 'u-9', route: null, ip: null, memory_mb: null })]
    const decoded = roundTrip(records)
    expect(decoded).toEqual(records)
    expect(decoded.map((r) => JSON.stringify(r))).toEqual(records.map((r) => JSON.stringify(r)))
  })

  it('stores repeated requests as what changed: a fraction of the records side by side', () => {
    const records = Array.from({ length: 100 }, (_, n) => record(n))
    const batch = encodeBatch(records, records.map((r) => Date.parse(r.timestamp)))
    expect(batch).toMatchObject({ count: 100, first_at: 1_700_000_000_000, last_at: 1_700_000_000_099 })
    expect(batch.data.length).toBeLessThan(JSON.stringify(records).length / 3)
    const stored = JSON.parse(batch.data) as { format: number; records: Array<Record<string, unknown>> }
    expect(stored.format).toBe(3)
    // Durations are whole microseconds, stored as integers.
    expect(stored.records[1]).toEqual({ trace_id: records[1]!.trace_id, duration_us: 2500, timestamp: records[1]!.timestamp })
    // The trace id header is stored as `true` and comes back as each record's own id.
    expect((stored.records[0]!.response as { headers: Record<string, unknown> }).headers['x-service-trace-id']).toBe(true)
    const decoded = decodeBatch(batch.data)
    expect(decoded.map((r) => r.response.headers['x-service-trace-id'])).toEqual(records.map((r) => r.trace_id))
    expect(decoded).toEqual(records)
  })

  it('keeps any text exactly, in a batch far larger than its first buffer (UTF-8 outside the heap)', () => {
    // Every record differs (path, body), non-ASCII of one to four bytes a character, and many joins over 16 KB.
    const texts = ['héllo', 'Ωmega', '日本語のテキスト', 'emoji 😀🚀 and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢', 'x'.repeat(5000) + '€']
    const records = Array.from({ length: 300 }, (_, n) =>
      record(n, { path: `/api/${texts[n % texts.length]}/${n}`, body: { content: { text: texts[(n * 7) % texts.length], n }, size: 10, truncated: false, incomplete: false } }),
    )
    const batch = encodeBatch(records, records.map((r) => Date.parse(r.timestamp)))
    expect(batch.data.length).toBeGreaterThan(200_000)
    expect(roundTrip(records)).toEqual(records)
    // Records that end between two joins come back too.
    for (const count of [1, 15, 16, 17, 33]) expect(roundTrip(records.slice(0, count))).toEqual(records.slice(0, count))
  })

  it('stores only the timings of statements that repeat the previous record\'s, in microseconds', () => {
    const statements = (n: number, rows = 1): TraceRecord['queries'] => [
      { sql: 'select id, title from posts where id = ?', args: [1], duration_ms: 0.021 + n / 1000, rows, start_ms: 0.105, last_insert_rowid: null, error: null, source: null },
      { sql: 'select name from tags where post_id = ?', args: [1], duration_ms: 0.4, rows: 2, start_ms: 0.2 + n, last_insert_rowid: null, error: null, source: null },
    ]
    const records = [
      record(1, { queries: statements(1) }),
      record(2, { queries: statements(2) }),
      // Same timings as the record before: nothing is stored for the queries.
      record(3, { queries: statements(2) }),
      // Another outcome (rows): the statements are stored whole.
      record(4, { queries: statements(4, 0) }),
      // A timing finer than a microsecond is stored as it is, with its statement.
      record(5, { queries: statements(5, 0).map((q, i) => (i === 0 ? { ...q, duration_ms: 0.0215 } : q)) }),
    ]
    const batch = encodeBatch(records, records.map((r) => Date.parse(r.timestamp)))
    const stored = (JSON.parse(batch.data) as { format: number; records: Array<Record<string, unknown>> }).records
    expect(stored[1]!.query_us).toEqual([23, 105, 400, 2200])
    expect(stored[1]!.queries).toBeUndefined()
    expect(Object.keys(stored[2]!)).toEqual(['trace_id', 'duration_us', 'timestamp'])
    expect(stored[3]!.queries).toEqual(records[3]!.queries)
    expect(stored[4]!.queries).toEqual(records[4]!.queries)
    const decoded = decodeBatch(batch.data)
    expect(decoded).toEqual(records)
    expect(decoded.map((r) => JSON.stringify(r))).toEqual(records.map((r) => JSON.stringify(r)))
  })

  it('stores a duration finer than a microsecond as it is', () => {
    const records = [record(1), record(2, { duration_ms: 2.0005 })]
    const stored = (JSON.parse(encodeBatch(records, [0, 1]).data) as { records: Array<Record<string, unknown>> }).records
    expect(stored[1]!.duration_ms).toBe(2.0005)
    expect(stored[1]!.duration_us).toBeUndefined()
    expect(roundTrip(records)).toEqual(records)
  })

  it('refuses query timings without the statements they belong to', () => {
    const first = JSON.parse(encodeBatch([record(1)], [0]).data) as { records: unknown[] }
    const corrupt = JSON.stringify({ format: 3, records: [...first.records, { trace_id: 'svc_2', query_us: [1, 2] }] })
    expect(() => decodeBatch(corrupt)).toThrow(/corrupt trace batch/)
  })

  it('keeps a header whose value only looks like the marker', () => {
    const records = [record(1), record(2)]
    records[1]!.response.headers = { ...records[1]!.response.headers, 'x-flag': 'true' }
    expect(roundTrip(records)[1]!.response.headers['x-flag']).toBe('true')
  })

  it('reads the older formats (an array of whole records; patches without query timings) and refuses an unknown one', () => {
    const records = [record(1), everythingChanged(2)]
    expect(decodeBatch(JSON.stringify(records))).toEqual(records)
    const formatTwo = encodeBatch(records, [0, 1]).data.replace('{"format":3,', '{"format":2,')
    expect(decodeBatch(formatTwo)).toEqual(records)
    expect(() => decodeBatch('{"format":9,"records":[]}')).toThrow(/unknown trace batch format 9/)
  })
})

describe('record builder', () => {
  const config = resolveTraceConfig({})
  it('shares unchanged parts between secret-free records, and a later secret never alters them', () => {
    const build = createRecordBuilder(config, 12)
    const first = build(rawTrace(1))
    const second = build(rawTrace(2))
    expect(second.headers).toBe(first.headers)
    expect(second.response.body).toBe(first.response.body)
    expect(second.response.headers).toEqual({ 'content-type': 'application/json' })
    expect(second.response.body.content).toEqual({ ok: true })
    // A record whose redaction found a secret (a redacted field) lends nothing to the next.
    const token = '{"token":"abcdefghij-secret"}'
    const redacted = build(rawTrace(6, { response_body: { text: token, size: token.length, truncated: false } }))
    expect(redacted.response.body.content).toEqual({ token: REDACTED })
    expect(build(rawTrace(7, { response_body: { text: token, size: token.length, truncated: false } })).response.body).not.toBe(redacted.response.body)

    // A bearer token that also appears in the (identical) response text: the third record scrubs it, by copy.
    const sharedText = '{"note":"abcdefghij-secret"}'
    const plain = build(rawTrace(3, { response_body: { text: sharedText, size: sharedText.length, truncated: false } }))
    const withSecret = build(
      rawTrace(4, {
        request_headers: { host: 'localhost', authorization: 'Bearer abcdefghij-secret' },
        response_body: { text: sharedText, size: sharedText.length, truncated: false },
      }),
    )
    expect(withSecret.headers.authorization).toBe(REDACTED)
    expect(withSecret.response.body.content).toEqual({ note: REDACTED })
    expect(plain.response.body.content).toEqual({ note: 'abcdefghij-secret' })
    // No part of a record with a secret is lent to the next one.
    const after = build(rawTrace(5, { response_body: { text: sharedText, size: sharedText.length, truncated: false } }))
    expect(after.response.body).not.toBe(withSecret.response.body)
    expect(after.response.body.content).toEqual({ note: 'abcdefghij-secret' })
  })

  it('formats timestamps as toISOString does, across seconds', () => {
    const build = createRecordBuilder(config, null)
    // Repeats (one string kept for the last millisecond), and a millisecond seen before, after another.
    const epochs = [0, 999, 1000, 1000, 1_700_000_000_001, 1_700_000_000_001, 1_700_000_000_010, 1_700_000_000_001, 1_700_000_000_999, 1_700_000_001_000, 1_700_000_001_100, 1.5, 1.5, -1]
    for (const epoch of epochs) {
      expect(build(rawTrace(0, { started_epoch: epoch })).timestamp).toBe(new Date(epoch).toISOString())
    }
  })
})
