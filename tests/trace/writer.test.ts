import { afterEach, describe, expect, it } from 'vitest'
import { defineRoutes, TRACE_HEADER } from 'svc'
import { decodeBatch, resolveTraceConfig, TraceWriter, type EncodedBatch, type PendingTrace, type RawTrace, type TraceSink } from 'svc/trace'
import { rawTrace, request, tracedApp, type TracedApp } from './helpers.ts'
import { startServer } from '../helpers/server.ts'
import { MAX_BATCH_BYTES } from '../../framework/trace/writer.ts'

const api = defineRoutes((r) => {
  r.get('/ping/{n}', async (c) => {
    await c.db.execute('select ?', [Number(c.params.n)])
    return { n: Number(c.params.n) }
  })
  r.get('/slow', async () => {
    await new Promise((resolve) => setTimeout(resolve, 250))
    return { slow: true }
  })
  r.get('/fail', () => {
    throw new Error('nope')
  })
  r.get('/missing', () => new Response(null, { status: 404 }))
})

/** A sink that holds every write until released, recording the trace ids it got. */
class GatedSink implements TraceSink {
  written: string[] = []
  /** The number of traces in each batch written. */
  batchSizes: number[] = []
  writes = 0
  private gate: Promise<void>
  private open!: () => void
  constructor(private readonly inner: TraceSink) {
    this.gate = new Promise((resolve) => (this.open = resolve))
  }
  release(): void {
    this.open()
  }
  async write(batch: EncodedBatch | null, dropped: number): Promise<void> {
    this.writes++
    await this.gate
    if (batch !== null) {
      this.written.push(...decodeBatch(batch.data).map((record) => record.trace_id))
      this.batchSizes.push(batch.count)
    }
    await this.inner.write(batch, dropped)
  }
  prune(options: { olderThanMs?: number; maxTraces?: number }): Promise<number> {
    return this.inner.prune(options)
  }
}

let traced: TracedApp | undefined
afterEach(async () => {
  await traced?.close()
  traced = undefined
})

describe('batch writer', () => {
  it('writes every trace exactly once under concurrent load, in batches', async () => {
    traced = await tracedApp({ api, traceVars: { TRACE_BATCH_SIZE: '25', TRACE_BUFFER_SIZE: '1000' } })
    const responses = await Promise.all(Array.from({ length: 300 }, (_, n) => traced!.app.fetch(request('GET', `/api/ping/${n}`))))
    const ids = responses.map((response) => response.headers.get(TRACE_HEADER)!)
    await traced.tracer.flush()
    const rows = await traced.store.search({})
    expect(rows).toHaveLength(300)
    expect(new Set(rows.map((row) => row.trace_id))).toEqual(new Set(ids))
    const stats = traced.tracer.stats()
    expect(stats).toMatchObject({ accepted: 300, written: 300, dropped: 0, failed: 0, pending: 0 })
  })

  it('never holds more than its bound when the store is slow: drops and counts the rest', async () => {
    let sink: GatedSink | undefined
    traced = await tracedApp({
      api,
      traceVars: { TRACE_BUFFER_SIZE: '40', TRACE_BATCH_SIZE: '10' },
      sink: (inner) => (sink = new GatedSink(inner)),
    })
    for (let n = 0; n < 100; n++) {
      const response = await traced.app.fetch(request('GET', `/api/ping/${n}`))
      expect(response.status).toBe(200) // requests are never held up by the store
      expect(traced.tracer.stats().pending).toBeLessThanOrEqual(40)
    }
    const stats = traced.tracer.stats()
    expect(stats.accepted).toBe(40)
    expect(stats.dropped).toBe(60)
    expect(stats.high_water).toBe(40)
    const ready = await traced.app.fetch(request('GET', '/health/ready'))
    const health = ((await ready.json()) as { data: { checks: { traces: Record<string, unknown> } } }).data.checks.traces
    // Dropped traces make the check degraded (still 200): the probe's own trace is dropped after it answers.
    expect(health).toMatchObject({ status: 'degraded', dropped: 60, capacity: 40, pending: 40 })
    expect(health.reason).toMatch(/dropped/)
    sink!.release()
    await traced.tracer.flush()
    expect(sink!.written).toHaveLength(40)
    expect(new Set(sink!.written).size).toBe(40)
    // The backlog is written in batches of at most TRACE_BATCH_SIZE.
    expect(Math.max(...sink!.batchSizes)).toBe(10)
    expect(sink!.batchSizes.reduce((sum, size) => sum + size, 0)).toBe(40)
    expect(await traced.store.droppedCount()).toBe(61)
  })

  it('a store that refuses every write (read-only storage/) makes /health/ready degraded, naming the error', async () => {
    const refusing: TraceSink = {
      write: async () => {
        throw new Error('SQLITE_READONLY: attempt to write a readonly database')
      },
      prune: async () => 0,
    }
    traced = await tracedApp({ api, sink: () => refusing })
    for (let n = 0; n < 3; n++) expect((await traced.app.fetch(request('GET', `/api/ping/${n}`))).status).toBe(200)
    await traced.tracer.flush()
    const ready = await traced.app.fetch(request('GET', '/health/ready'))
    expect(ready.status).toBe(200)
    const health = ((await ready.json()) as { data: { checks: { traces: Record<string, unknown> } } }).data.checks.traces
    expect(health).toMatchObject({ status: 'degraded', written: 0, failed: 3, pending: 0 })
    expect(health.reason).toBe('traces could not be written in the last minute (3 lost since start): SQLITE_READONLY: attempt to write a readonly database')
  })

  it('counts a trace that cannot be built as failed and writes the rest of its batch', async () => {
    const written: string[] = []
    const sink: TraceSink = {
      write: async (batch) => void (batch !== null && written.push(...decodeBatch(batch.data).map((record) => record.trace_id))),
      prune: async () => 0,
    }
    const errors: unknown[] = []
    const writer = new TraceWriter(sink, resolveTraceConfig({ TRACE_FLUSH_MS: '1' }), (error) => errors.push(error))
    const pending = (raw: RawTrace): PendingTrace => ({ raw, requestBody: null, requestBodyParsed: false, responseBody: null, abandon: null })
    const good = (n: number) => pending(rawTrace(n))
    const broken = pending(rawTrace(2, { queries: undefined as never }))
    for (const pending of [good(1), broken, good(3)]) expect(writer.push(pending)).toBe(true)
    await writer.close()
    expect(written).toEqual([`svc_${'1'.padStart(32, '0')}`, `svc_${'3'.padStart(32, '0')}`])
    expect(writer.stats).toMatchObject({ accepted: 3, written: 2, failed: 1, pending: 0 })
    expect(errors).toHaveLength(1)
  })

  it('writes 1,000 traces a batch by default (TRACE_BATCH_SIZE), in the order they came', async () => {
    const batches: Array<{ count: number; ids: string[] }> = []
    const sink: TraceSink = {
      write: async (batch) => void (batch !== null && batches.push({ count: batch.count, ids: decodeBatch(batch.data).map((record) => record.trace_id) })),
      prune: async () => 0,
    }
    const writer = new TraceWriter(sink, resolveTraceConfig({ TRACE_FLUSH_MS: '60000' }))
    for (let n = 0; n < 2001; n++) writer.push({ raw: rawTrace(n), requestBody: null, requestBodyParsed: false, responseBody: null, abandon: null })
    await writer.close()
    expect(batches.map((batch) => batch.count)).toEqual([1000, 1000, 1])
    expect(batches.flatMap((batch) => batch.ids)).toEqual(Array.from({ length: 2001 }, (_, n) => `svc_${String(n).padStart(32, '0')}`))
  })

  it('closes a batch at MAX_BATCH_BYTES whatever its count: responses that differ make no row of tens of megabytes', async () => {
    const batches: Array<{ count: number; length: number; ids: string[] }> = []
    const sink: TraceSink = {
      write: async (batch) => void (batch !== null && batches.push({ count: batch.count, length: batch.data.length, ids: decodeBatch(batch.data).map((r) => r.trace_id) })),
      prune: async () => 0,
    }
    const writer = new TraceWriter(sink, resolveTraceConfig({ TRACE_FLUSH_MS: '60000' }))
    // 16 KB of text each (the default body limit), different every time: every record stores it.
    const body = (n: number) => JSON.stringify({ n, text: `${n}`.padEnd(16_000, 'x') })
    for (let n = 0; n < 600; n++) {
      const text = body(n)
      writer.push({ raw: rawTrace(n, { response_body: { text, size: text.length, truncated: false } }), requestBody: null, requestBodyParsed: false, responseBody: null, abandon: null })
    }
    await writer.close()
    expect(batches.length).toBeGreaterThan(2)
    // Closed by the record that crossed the cap: at most one record over it.
    for (const batch of batches) expect(batch.length).toBeLessThan(MAX_BATCH_BYTES + 17_000)
    expect(batches.slice(0, -1).every((batch) => batch.length >= MAX_BATCH_BYTES)).toBe(true)
    expect(batches.flatMap((batch) => batch.ids)).toEqual(Array.from({ length: 600 }, (_, n) => `svc_${String(n).padStart(32, '0')}`))
  })

  it('loses nothing accepted at a graceful stop of the server', async () => {
    traced = await tracedApp({ api, traceVars: { TRACE_FLUSH_MS: '60000', TRACE_BATCH_SIZE: '10000' } })
    const t = traced
    let closedWithPending = -1
    const server = await startServer(t.app, {
      onClose: async () => {
        closedWithPending = t.tracer.stats().pending
        await t.tracer.close()
      },
    })
    const ids = await Promise.all(
      Array.from({ length: 50 }, async (_, n) => (await fetch(`${server.url}/api/ping/${n}`)).headers.get(TRACE_HEADER)!),
    )
    expect(await t.store.count()).toBe(0) // nothing flushed yet: the flush interval is a minute
    await server.close()
    expect(closedWithPending).toBe(50)
    const rows = await t.store.search({})
    expect(new Set(rows.map((row) => row.trace_id))).toEqual(new Set(ids))
    expect(t.tracer.stats()).toMatchObject({ written: 50, pending: 0, dropped: 0 })
  })
})

describe('modes', () => {
  async function kept(traceVars: Record<string, string>): Promise<string[]> {
    const t = await tracedApp({ api, traceVars })
    try {
      for (const path of ['/api/ping/1', '/api/slow', '/api/fail', '/api/missing', '/api/ping/2']) await t.app.fetch(request('GET', path))
      await t.tracer.flush()
      return (await t.store.search({ order: 'oldest' })).map((row) => `${row.path} ${row.status_code}`)
    } finally {
      await t.close()
    }
  }

  it('all, errors, slow, a mix, off', async () => {
    expect(await kept({})).toHaveLength(5)
    expect(await kept({ TRACE_MODE: 'errors' })).toEqual(['/api/fail 500', '/api/missing 404'])
    expect(await kept({ TRACE_MODE: 'slow', TRACE_SLOW_MS: '200' })).toEqual(['/api/slow 200'])
    expect(await kept({ TRACE_MODE: 'errors,slow', TRACE_SLOW_MS: '200' })).toEqual(['/api/slow 200', '/api/fail 500', '/api/missing 404'])
    expect(await kept({ TRACE_MODE: 'off' })).toEqual([])
  })

  it('sample keeps the configured share, and every 5xx', async () => {
    expect(await kept({ TRACE_MODE: 'sample', TRACE_SAMPLE_RATE: '0' })).toEqual(['/api/fail 500'])
    expect(await kept({ TRACE_MODE: 'sample', TRACE_SAMPLE_RATE: '1' })).toHaveLength(5)
  })
})

describe('retention', () => {
  it('prunes by age and by count', async () => {
    traced = await tracedApp({ api })
    for (let n = 0; n < 5; n++) {
      await traced.app.fetch(request('GET', `/api/ping/${n}`))
      await traced.tracer.flush()
    }
    expect(await traced.store.prune({ maxTraces: 3 })).toBe(2)
    expect((await traced.store.search({ order: 'oldest' })).map((row) => row.path)).toEqual(['/api/ping/2', '/api/ping/3', '/api/ping/4'])
    expect(await traced.store.prune({ olderThanMs: Date.now() + 1000 })).toBe(3)
    expect(await traced.store.count()).toBe(0)
  })

  it('by count, deletes whole batches only: up to a batch more than the limit stays', async () => {
    traced = await tracedApp({ api, traceVars: { TRACE_BATCH_SIZE: '2', TRACE_FLUSH_MS: '60000' } })
    for (let n = 0; n < 5; n++) await traced.app.fetch(request('GET', `/api/ping/${n}`))
    await traced.tracer.flush() // batches [0, 1], [2, 3], [4]
    expect(await traced.store.prune({ maxTraces: 2 })).toBe(2)
    expect((await traced.store.search({ order: 'oldest' })).map((row) => row.path)).toEqual(['/api/ping/2', '/api/ping/3', '/api/ping/4'])
    expect(await traced.store.prune({ maxTraces: 3 })).toBe(0)
    expect(await traced.store.prune({ maxTraces: 1 })).toBe(2)
    expect(await traced.store.count()).toBe(1)
  })

  it('the writer prunes automatically to TRACE_MAX_TRACES', async () => {
    traced = await tracedApp({ api, traceVars: { TRACE_MAX_TRACES: '4', TRACE_BATCH_SIZE: '1' } })
    for (let n = 0; n < 10; n++) {
      await traced.app.fetch(request('GET', `/api/ping/${n}`))
      await traced.tracer.flush()
    }
    const paths = (await traced.store.search({ order: 'oldest' })).map((row) => row.path)
    expect(paths).toEqual(['/api/ping/6', '/api/ping/7', '/api/ping/8', '/api/ping/9'])
  })
})
