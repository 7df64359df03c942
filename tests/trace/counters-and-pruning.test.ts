/**
 * Issue 11, item 13 and the retention items: the dropped-trace count is one
 * counter, stored as traces are dropped (not only when something else is
 * written, not lost with a failed write) and shown the same by /health/ready
 * and `svc log:stats`; traces past the retention are pruned on a timer, with
 * no traffic at all; cleanup deletes in short transactions and counts right.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { defineRoutes, HttpError, TRACE_HEADER } from 'svc'
import { createTracer, encodeBatch, resolveTraceConfig, storeSink, type TraceRecord, type TraceSink, type TraceStore } from 'svc/trace'
import { openTraceStore } from 'svc/node'
import { cleanupTraces } from '../../cli/trace/cleanup.ts'
import { tempDir } from '../helpers/app.ts'
import { request, traceRecord, tracedApp, type TracedApp } from './helpers.ts'

const api = defineRoutes((r) => {
  r.post('/guarded', function guarded() {
    throw new HttpError(401, 'Unauthenticated')
  })
  r.get('/ping', () => ({ ok: true }))
})

let traced: TracedApp | undefined
let cleanup: Array<() => unknown> = []
afterEach(async () => {
  await traced?.close()
  traced = undefined
  for (const step of cleanup.reverse()) await step()
  cleanup = []
})

/** A request whose body never ends: its trace stays pending until the writer closes. */
function endlessPost(): Request {
  const body = new ReadableStream<Uint8Array>({ pull: () => new Promise(() => {}) })
  return new Request('http://localhost/api/guarded', { method: 'POST', body, headers: { 'content-type': 'text/plain' }, duplex: 'half' } as RequestInit)
}

async function health(t: TracedApp): Promise<Record<string, number>> {
  const response = await t.app.fetch(request('GET', '/health/ready'))
  return ((await response.json()) as { data: { checks: { traces: Record<string, number> } } }).data.checks.traces
}

/** A record that began `ageMs` ago. */
function oldRecord(n: number, ageMs: number): TraceRecord {
  return traceRecord(n, { timestamp: new Date(Date.now() - ageMs).toISOString() })
}

async function freshStore(): Promise<TraceStore> {
  const dir = tempDir('svc-trace-prune-')
  const store = await openTraceStore({ storageDir: dir.path, projectDir: dir.path })
  cleanup.push(() => dir.remove(), () => store.close())
  return store
}

describe('the dropped-trace counter', () => {
  it('is stored while the buffer stays full, even though nothing else is written, and /health/ready shows the stored counter', async () => {
    traced = await tracedApp({ api, traceVars: { TRACE_BUFFER_SIZE: '3' } })
    const t = traced
    for (let i = 0; i < 3; i++) expect((await t.app.fetch(endlessPost())).status).toBe(401)
    for (let i = 0; i < 25; i++) await t.app.fetch(request('GET', '/api/ping'))
    expect(t.tracer.stats()).toMatchObject({ pending: 3, dropped: 25 })
    // Stored within a flush interval, though the buffer is still full and no trace was written.
    await vi.waitFor(async () => expect(await t.store.droppedCount()).toBe(25), { timeout: 10_000, interval: 10 })
    expect(t.tracer.stats().written).toBe(0)
    const probe = await health(t)
    expect(probe.dropped).toBe(25)
    // The probe's own trace was dropped too: the next reading and the store agree again.
    await vi.waitFor(async () => expect(await t.store.droppedCount()).toBe(26), { timeout: 10_000, interval: 10 })
    expect(t.tracer.stats().dropped).toBe(26)
  })

  it('survives a restart: a new tracer on the same store starts from the stored count', async () => {
    traced = await tracedApp({ api, traceVars: { TRACE_BUFFER_SIZE: '1' } })
    await traced.app.fetch(endlessPost())
    for (let i = 0; i < 4; i++) await traced.app.fetch(request('GET', '/api/ping'))
    await traced.tracer.close()
    expect(await traced.store.droppedCount()).toBe(4)
    const again = createTracer({ sink: storeSink(traced.store), config: resolveTraceConfig({}) })
    await vi.waitFor(() => expect(again.stats().dropped).toBe(4), { timeout: 10_000, interval: 10 })
    await again.close()
  })

  it('is not lost with a batch the store failed to write', async () => {
    let failNext = true
    traced = await tracedApp({
      api,
      traceVars: { TRACE_BUFFER_SIZE: '2', TRACE_BATCH_SIZE: '2' },
      sink: (inner): TraceSink => ({
        write: (batch, dropped) => {
          if (failNext) {
            failNext = false
            return Promise.reject(new Error('disk full'))
          }
          return inner.write(batch, dropped)
        },
        prune: (options) => inner.prune(options),
        droppedCount: () => inner.droppedCount!(),
      }),
    })
    const onError = vi.spyOn(console, 'error').mockImplementation(() => {})
    for (let i = 0; i < 2; i++) await traced.app.fetch(endlessPost())
    for (let i = 0; i < 5; i++) await traced.app.fetch(request('GET', '/api/ping'))
    await traced.tracer.close()
    onError.mockRestore()
    expect(await traced.store.droppedCount()).toBe(5)
  })
})

describe('automatic pruning', () => {
  it('runs on a timer, with no request at all', async () => {
    const store = await freshStore()
    const old = Array.from({ length: 6 }, (_, n) => oldRecord(n, 3 * 86_400_000))
    await store.writeRecords(old.slice(0, 3))
    await store.writeRecords(old.slice(3))
    await store.writeRecords([oldRecord(9, 1000)])
    expect(await store.count()).toBe(7)
    const tracer = createTracer({ sink: storeSink(store), config: resolveTraceConfig({ TRACE_RETENTION_DAYS: '1' }), pruneEveryMs: 20 })
    cleanup.push(() => tracer.close())
    await vi.waitFor(async () => expect(await store.count()).toBe(1), { timeout: 10_000, interval: 20 })
    expect(tracer.stats()).toMatchObject({ accepted: 0, written: 0 })
  })
})

describe('log:cleanup', () => {
  it('deletes in short transactions and counts what it deleted and what remains', async () => {
    const store = await freshStore()
    // 40 old batches of 5 traces, and 2 recent traces.
    for (let b = 0; b < 40; b++) {
      const records = Array.from({ length: 5 }, (_, i) => oldRecord(b * 5 + i, 10 * 86_400_000 - b))
      await store.writeBatch(encodeBatch(records, records.map((record) => Date.parse(record.timestamp))))
    }
    await store.writeRecords([oldRecord(1000, 1000), oldRecord(1001, 500)])

    expect(await cleanupTraces(store, { days: 7, dryRun: true })).toEqual({ days: 7, dry_run: true, deleted: 200, remaining: 2 })
    expect(await store.count()).toBe(202)

    const statements: string[] = []
    const execute = store.db.execute.bind(store.db)
    vi.spyOn(store.db, 'execute').mockImplementation((sql, args) => {
      statements.push(typeof sql === 'string' ? sql : (sql as { sql: string }).sql)
      return execute(sql as never, args as never)
    })
    expect(await cleanupTraces(store, { days: 7, dryRun: false })).toEqual({ days: 7, dry_run: false, deleted: 200, remaining: 2 })
    // 40 batches in statements of at most 16.
    expect(statements.filter((sql) => sql.startsWith('delete')).length).toBeGreaterThanOrEqual(3)
    expect(await store.count()).toBe(2)
    expect(await cleanupTraces(store, { days: 0, dryRun: false })).toEqual({ days: 0, dry_run: false, deleted: 2, remaining: 0 })
  })
})

it('the trace of a request answered while the buffer is full says nothing to the client', async () => {
  traced = await tracedApp({ api, traceVars: { TRACE_BUFFER_SIZE: '1' } })
  await traced.app.fetch(endlessPost())
  const response = await traced.app.fetch(request('GET', '/api/ping'))
  expect(response.status).toBe(200)
  expect(response.headers.get(TRACE_HEADER)).toMatch(/^svc_[0-9a-f]{32}$/)
})
