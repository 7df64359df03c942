/**
 * Issue 11, item 7: while another process holds a write on traces.sqlite,
 * requests must not wait for the trace store. No clock is read: the test
 * holds the lock itself, so it knows the store cannot be written, and checks
 * that requests are answered while the writer's write is still waiting, then
 * that every trace is written once the lock is released.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createClient, type Client, type Transaction } from '@libsql/client'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createApp, defineRoutes, resolveConfig, type EnvRecord } from 'svc'
import { createTracer, resolveTraceConfig, type SvcTracer, type TraceSink } from 'svc/trace'
import { findProject } from '../../cli/project/project.ts'
import { openProjectTracer } from '../../cli/trace/open-store.ts'
import { openTraceStore, resolveTraceWriter, threadTraceSink, workerTraceSink } from 'svc/node'
import { throttledConsoleError } from '../../framework/trace/tracer.ts'
import { tempDir, testConfig } from '../helpers/app.ts'
import { startServer, type RunningServer } from '../helpers/server.ts'

const api = defineRoutes((r) => {
  r.get('/ping/{n}', (c) => ({ n: Number(c.params.n) }))
})

/** A sink that counts the writes still waiting for the store. */
function counting(inner: TraceSink): TraceSink & { inFlight: number; attempts: number } {
  const sink = {
    inFlight: 0,
    attempts: 0,
    async write(...args: Parameters<TraceSink['write']>) {
      sink.inFlight++
      sink.attempts++
      try {
        return await inner.write(...args)
      } finally {
        sink.inFlight--
      }
    },
    prune: (options: Parameters<TraceSink['prune']>[0]) => inner.prune(options),
    droppedCount: () => inner.droppedCount?.() ?? Promise.resolve(0),
  }
  return sink
}

let cleanup: Array<() => Promise<unknown> | unknown> = []
afterEach(async () => {
  for (const step of cleanup.reverse()) await step()
  cleanup = []
})

interface Setup {
  tracer: SvcTracer
  server: RunningServer
  sink: ReturnType<typeof counting>
  locker: Client
  countRows(): Promise<number>
}

async function setup(writer: 'worker' | 'thread', vars: EnvRecord = {}): Promise<Setup> {
  const dir = tempDir('svc-trace-lock-')
  cleanup.push(() => dir.remove())
  const storeOptions = { storageDir: dir.path, projectDir: dir.path }
  // The store exists (tables created) before the other connection takes its lock.
  const reader = await openTraceStore(storeOptions)
  cleanup.push(() => reader.close())
  let inner: TraceSink
  if (writer === 'worker') {
    const worker = await workerTraceSink(storeOptions)
    cleanup.push(() => worker.close())
    inner = worker
  } else {
    // As `svc serve` opens it with TRACE_WRITER=thread: a locked store is not waited for.
    const thread = await threadTraceSink(storeOptions)
    cleanup.push(() => thread.close())
    inner = thread
  }
  const sink = counting(inner)
  const tracer = createTracer({ sink, config: resolveTraceConfig({ TRACE_FLUSH_MS: '5', TRACE_BATCH_SIZE: '10', ...vars }) })
  cleanup.push(() => tracer.close())
  const server = await startServer(createApp({ config: testConfig(), api, tracer }))
  cleanup.push(() => server.close())
  const locker = createClient({ url: `file:${join(dir.path, 'traces.sqlite')}` })
  cleanup.push(() => locker.close())
  return { tracer, server, sink, locker, countRows: async () => (await reader.search({})).length }
}

async function ping(server: RunningServer, n: number): Promise<void> {
  const response = await fetch(`${server.url}/api/ping/${n}`)
  expect(response.status).toBe(200)
  await response.text()
}

describe('a trace store locked by another process', () => {
  it('svc serve writes as TRACE_WRITER says (auto by default: by the CPUs it can use); a one-shot command writes from its own thread', async () => {
    expect(resolveTraceConfig({}).writer).toBe('auto')
    const dir = tempDir('svc-trace-writer-')
    cleanup.push(() => dir.remove())
    mkdirSync(join(dir.path, 'routes'))
    writeFileSync(join(dir.path, 'routes', 'api.ts'), 'export default undefined\n')
    const project = findProject(dir.path)
    const config = resolveConfig({ APP_ENV: 'test' })
    for (const [serving, vars, writer] of [
      [true, {}, resolveTraceWriter('auto')],
      [false, {}, 'thread'],
      [true, { TRACE_WRITER: 'worker' }, 'worker'],
      [true, { TRACE_WRITER: 'thread' }, 'thread'],
      [false, { TRACE_WRITER: 'worker' }, 'thread'],
    ] as const) {
      const tracing = (await openProjectTracer(project, { ...config, vars: { ...config.vars, ...vars } }, { serving }))!
      expect(tracing.writer, `serving ${serving}, ${JSON.stringify(vars)}`).toBe(writer)
      await tracing.close()
    }
  })

  it('the worker writer: requests are answered while its write waits for the lock; nothing is lost', async () => {
    const { tracer, server, sink, locker, countRows } = await setup('worker')
    const lock: Transaction = await locker.transaction('write')
    try {
      for (let n = 0; n < 10; n++) await ping(server, n)
      // The batch is full: its write starts, and waits for the lock.
      await vi.waitFor(() => expect(sink.inFlight).toBe(1), { timeout: 10_000, interval: 5 })
      for (let n = 10; n < 40; n++) {
        await ping(server, n)
        // Answered while the write is still waiting: the request did not wait for the store.
        expect(sink.inFlight).toBe(1)
      }
      expect(tracer.stats().written).toBe(0)
    } finally {
      await lock.rollback()
    }
    await tracer.flush()
    expect(tracer.stats()).toMatchObject({ accepted: 40, written: 40, failed: 0, dropped: 0, pending: 0 })
    expect(await countRows()).toBe(40)
  })

  it('TRACE_WRITER=thread: the request thread never waits for the lock; the batch is tried again once it is free', async () => {
    const { tracer, server, sink, locker, countRows } = await setup('thread')
    const lock: Transaction = await locker.transaction('write')
    try {
      for (let n = 0; n < 10; n++) await ping(server, n)
      // The write was tried and refused at once (the store is locked); it is not lost, it waits.
      await vi.waitFor(() => expect(tracer.stats().last_error).toMatch(/SQLITE_BUSY|locked/i), { timeout: 10_000, interval: 5 })
      const attempts = sink.attempts
      for (let n = 10; n < 40; n++) await ping(server, n)
      expect(tracer.stats()).toMatchObject({ written: 0, failed: 0 })
      expect(sink.attempts).toBeGreaterThanOrEqual(attempts)
    } finally {
      await lock.rollback()
    }
    await tracer.flush()
    expect(tracer.stats()).toMatchObject({ accepted: 40, written: 40, failed: 0, dropped: 0, pending: 0 })
    expect(await countRows()).toBe(40)
  })

  it('a stop while the store stays locked ends, counting what could not be written as failed', async () => {
    const { tracer, server, locker } = await setup('thread', { TRACE_FLUSH_MS: '1' })
    const lock: Transaction = await locker.transaction('write')
    try {
      for (let n = 0; n < 5; n++) await ping(server, n)
      await server.close()
      await tracer.close()
      expect(tracer.stats()).toMatchObject({ accepted: 5, written: 0, failed: 5, pending: 0 })
      expect(tracer.stats().last_error).toMatch(/stayed locked/)
    } finally {
      await lock.rollback()
    }
  })

  it("the log says a locked store's batch waits and is tried again (nothing lost), a lost trace that it was lost; each kind once a minute", () => {
    const lines: string[] = []
    const report = throttledConsoleError((line) => lines.push(line))
    const busy = () => new Error('The service is busy; try again in a moment.', { cause: Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }) })
    report(busy())
    report(busy())
    // A loss right after a lock is still said (at a stop, the batches that stayed locked are counted as failed).
    report(new Error('the trace store stayed locked: 5 trace(s) were not written at close'))
    report(new Error('disk I/O error'))
    expect(lines).toEqual([
      expect.stringMatching(/^svc traces: the trace store is locked by another connection \(The service is busy.*\); the batch waits and is tried again$/),
      'svc traces: a trace could not be written: the trace store stayed locked: 5 trace(s) were not written at close',
    ])
  })
})
