/**
 * Each traced statement records the line of application code that sent it
 * (`queries[].source`), captured as it is sent and resolved when the record
 * is built, once per call site (framework/trace/query-site.ts).
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { decodeBatch, encodeBatch, type TraceRecord } from 'svc/trace'
import { QuerySites } from '../../framework/trace/query-site.ts'
import { routes } from './fixtures/query-sites.ts'
import { request, tracedApp, type TracedApp } from './helpers.ts'

const fixture = fileURLToPath(new URL('./fixtures/query-sites.ts', import.meta.url))
const lines = readFileSync(fixture, 'utf8').split('\n')
/** 1-based line of the first line of the fixture containing `text` (after `after`, when given). */
const lineOf = (text: string, after = 0) => lines.findIndex((line, i) => i >= after && line.includes(text)) + 1

let traced: TracedApp

beforeAll(async () => {
  traced = await tracedApp({ web: routes })
})
afterAll(() => traced?.close())

async function traceOf(path: string): Promise<TraceRecord> {
  const response = await traced.app.fetch(request('GET', path))
  expect(response.status).toBe(200)
  const id = response.headers.get('x-service-trace-id')!
  await traced.tracer.flush()
  return (await traced.store.get(id))!
}

describe('the source line of each statement', () => {
  it('is the line that sent it, awaited or not', async () => {
    const awaited = await traceOf('/awaited')
    expect(awaited.queries[0]!.source).toEqual({ file: fixture, line: lineOf("select 1 as awaited"), column: expect.any(Number) })
    const unawaited = await traceOf('/unawaited')
    expect(unawaited.queries[0]!.source?.line).toBe(lineOf("select 5 as unawaited"))
  })

  it('names one line for an N+1 loop, and the finding carries it', async () => {
    const record = await traceOf('/loop')
    expect(record.queries).toHaveLength(6)
    expect(new Set(record.queries.map((q) => q.source?.line))).toEqual(new Set([lineOf("select ? as id")]))
    expect(record.n_plus_one).toEqual([{ shape: 'select ? as id', count: 6, total_ms: expect.any(Number), source: record.queries[0]!.source }])
  })

  it('tells apart the same statement sent from two lines, request after request', async () => {
    const first = lineOf('select 2 as twice')
    const second = lineOf('select 2 as twice', first)
    for (let i = 0; i < 3; i++) {
      const record = await traceOf('/twice')
      expect(record.queries.map((q) => q.source?.line)).toEqual([first, second])
    }
  })

  it('gives each statement of a batch the line of the batch', async () => {
    const record = await traceOf('/batch')
    expect(record.queries.map((q) => q.source?.line)).toEqual([lineOf('c.db.batch'), lineOf('c.db.batch')])
  })

  it('survives the batch codec, and a stored record without sources reads as null', () => {
    const record = { ...structuredClone(traceRecordWithoutSources()), trace_id: 'svc_1' }
    const decoded = decodeBatch(encodeBatch([record], [0]).data)[0]!
    expect(decoded.queries[0]!.source).toBeNull()
    expect(decoded.n_plus_one[0]!.source).toBeNull()
  })
})

/** A record as svc stored it before statements had a source. */
function traceRecordWithoutSources(): TraceRecord {
  // As stored then: without events either.
  return {
    trace_id: 'svc_0',
    method: 'GET',
    path: '/x',
    query: '',
    route: null,
    status_code: 200,
    headers: {},
    body: { content: null, size: 0, truncated: false, incomplete: false },
    queries: [{ sql: 'select 1', args: null, duration_ms: 1, rows: 1, start_ms: 0, last_insert_rowid: null, error: null } as TraceRecord['queries'][number]],
    middleware: [],
    exception: null,
    trace: null,
    duration_ms: 1,
    memory_mb: null,
    n_plus_one: [{ shape: 'select ?', count: 5, total_ms: 1 } as TraceRecord['n_plus_one'][number]],
    ip: null,
    timestamp: '2026-01-01T00:00:00.000Z',
    user_id: null,
    response: { status: 200, headers: {}, body: { content: null, size: 0, truncated: false, incomplete: false } },
  } as Omit<TraceRecord, 'events' | 'events_omitted'> as TraceRecord
}

describe('call sites', () => {
  it('tell apart the first sendings of a text in a request, and give a long loop one site for its later passes', () => {
    const sites = new QuerySites()
    const first = sites.at('GET /loop', 'select 1', 0)
    expect(sites.at('GET /loop', 'select 1', 0)).toBe(first)
    expect(sites.at('GET /loop', 'select 1', 1)).not.toBe(first)
    // A loop of thousands of passes: bounded sites, so the map is not cleared (and stacks captured again) within a request.
    const late = sites.at('GET /loop', 'select 1', 15)
    for (let pass = 16; pass < 6000; pass++) expect(sites.at('GET /loop', 'select 1', pass)).toBe(late)
    expect(sites.at('GET /loop', 'select 1', 0)).toBe(first)
  })
})
