/**
 * TRACE_WRITER: `auto` picks the writer by the CPUs the process can use, and
 * the thread writer writes on the request thread while another thread
 * checkpoints the store's log. What is checked is where the log's pages end
 * up (the database file grows only when a checkpoint copies them), not time.
 */
import { statSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createApp, defineRoutes, TRACE_HEADER } from 'svc'
import { createTracer, resolveTraceConfig, type EncodedBatch, type TraceSink } from 'svc/trace'
import { openTraceSink, openTraceStore, resolveTraceWriter, threadTraceSink } from 'svc/node'
import { tempDir, testConfig } from '../helpers/app.ts'
import { request } from './helpers.ts'

let cleanup: Array<() => Promise<unknown> | unknown> = []
afterEach(async () => {
  for (const step of cleanup.reverse()) await step()
  cleanup = []
})

function storeDir(): { storageDir: string; projectDir: string; file: string } {
  const dir = tempDir('svc-trace-thread-')
  cleanup.push(() => dir.remove())
  return { storageDir: dir.path, projectDir: dir.path, file: join(dir.path, 'traces.sqlite') }
}

/** A batch of `count` traced requests whose responses differ (each record's patch is most of a kilobyte). */
async function bulkyBatch(count: number, seed: number): Promise<EncodedBatch> {
  let captured: EncodedBatch | null = null
  const tracer = createTracer({
    sink: { write: async (batch) => void (captured = batch), prune: async () => 0 },
    config: resolveTraceConfig({ TRACE_BATCH_SIZE: String(count), TRACE_FLUSH_MS: '60000' }),
  })
  const app = createApp({ config: testConfig(), tracer, api: defineRoutes((r) => r.get('/echo/{n}', (c) => ({ pad: `${c.params.n}:`.repeat(120) }))) })
  for (let i = 0; i < count; i++) await app.fetch(request('GET', `/api/echo/${seed}-${i}`))
  await tracer.close()
  expect(captured).not.toBeNull()
  return captured!
}

const sizeOf = (file: string) => statSync(file).size

/** The checkpoint period the tests below set (`checkpointEveryBytes`). */
const PERIOD = 512 * 1024
const PERIODS = 8

/** A count of the checkpoints that ended, for `threadTraceSink`'s `onCheckpointEnd`. */
function checkpointCounter(): { ended: number; onCheckpointEnd: () => void } {
  const counter = { ended: 0, onCheckpointEnd: () => void counter.ended++ }
  return counter
}

/**
 * Writes eight periods of `batch` through `sink` and checks, after each, that
 * its checkpoint ended and copied all written so far into the database file
 * (only a checkpoint copies it there), that the log started over (it ends
 * far smaller than the text written), and that every trace is readable.
 * Each period waits for its checkpoint to end before writing on, so that the
 * log's size does not depend on how soon the checkpointing thread gets a CPU.
 */
async function expectLogCopiedEveryPeriod(dir: ReturnType<typeof storeDir>, sink: TraceSink, batch: EncodedBatch, checkpoints: { ended: number }): Promise<void> {
  const before = sizeOf(dir.file)
  // The write that brings the text since the last checkpoint to PERIOD asks for the next one.
  const perPeriod = Math.ceil(PERIOD / batch.data.length)
  let writes = 0
  for (let period = 1; period <= PERIODS; period++) {
    for (let i = 0; i < perPeriod; i++) await sink.write(batch, 0)
    writes += perPeriod
    await vi.waitFor(() => expect(checkpoints.ended).toBe(period), { timeout: 10_000, interval: 10 })
    // The request thread's own commits never checkpoint (tested below): what reached the file was copied by a checkpoint
    // (each 16 KiB page holds at most 16 KiB of text, so the file grows by at least the text's size).
    expect(sizeOf(dir.file)).toBeGreaterThanOrEqual(before + writes * batch.data.length)
  }
  // A log never started over holds all the text written (eight periods); one started over after each checkpoint
  // holds one period's text at most, with a page of slack per batch.
  expect(writes * batch.data.length).toBeGreaterThanOrEqual(PERIODS * PERIOD)
  expect(sizeOf(`${dir.file}-wal`)).toBeLessThan(2 * PERIOD)
  const reader = await openTraceStore(dir)
  cleanup.push(() => reader.close())
  expect(await reader.count()).toBe(batch.count * writes)
}

describe('TRACE_WRITER=auto', () => {
  it('is the default, and is the request thread where the process can run on one CPU only, a worker thread otherwise', () => {
    expect(resolveTraceConfig({}).writer).toBe('auto')
    expect(resolveTraceWriter('auto', 1)).toBe('thread')
    expect(resolveTraceWriter('auto', 2)).toBe('worker')
    expect(resolveTraceWriter('auto', 64)).toBe('worker')
    expect(resolveTraceWriter('worker', 1)).toBe('worker')
    expect(resolveTraceWriter('thread', 8)).toBe('thread')
    expect(() => resolveTraceConfig({ TRACE_WRITER: 'fast' })).toThrow(/TRACE_WRITER.*auto, thread or worker/)
  })

  it('openTraceSink says which writer it runs', async () => {
    const dir = storeDir()
    for (const writer of ['thread', 'worker'] as const) {
      const sink = await openTraceSink(dir, writer)
      cleanup.push(() => sink.close())
      expect(sink.writer).toBe(writer)
    }
    const auto = await openTraceSink(dir)
    cleanup.push(() => auto.close())
    expect(auto.writer).toBe(resolveTraceWriter('auto'))
  })
})

describe('TRACE_WRITER=thread: batches written on the request thread, the log checkpointed by another', () => {
  it('writes every trace, and a reader sees them before the sink closes', async () => {
    const dir = storeDir()
    const sink = await threadTraceSink(dir)
    cleanup.push(() => sink.close())
    const tracer = createTracer({ sink, config: resolveTraceConfig({ TRACE_WRITER: 'thread', TRACE_BATCH_SIZE: '7', TRACE_FLUSH_MS: '60000' }) })
    // Closed before the sink (cleanup runs last first): its timers would otherwise write to a closed store.
    cleanup.push(() => tracer.close())
    const app = createApp({ config: testConfig(), tracer, api: defineRoutes((r) => r.get('/ping/{n}', (c) => ({ n: Number(c.params.n) }))) })
    const ids: string[] = []
    for (let i = 0; i < 30; i++) ids.push((await app.fetch(request('GET', `/api/ping/${i}`))).headers.get(TRACE_HEADER)!)
    await tracer.flush()
    expect(tracer.stats()).toMatchObject({ accepted: 30, written: 30, failed: 0, dropped: 0 })
    const reader = await openTraceStore(dir)
    cleanup.push(() => reader.close())
    expect(new Set((await reader.search({})).map((row) => row.trace_id))).toEqual(new Set(ids))
  })

  it("never checkpoints on the request thread: past SQLite's own 1,000-page threshold the log is still not copied", async () => {
    const dir = storeDir()
    // A checkpoint thread that is never asked: what reaches the database file would be the request thread's doing.
    const sink = await threadTraceSink(dir, { checkpointEveryBytes: Number.MAX_SAFE_INTEGER })
    cleanup.push(() => sink.close())
    const batch = await bulkyBatch(200, 1)
    const before = sizeOf(dir.file)
    let written = 0
    // 1,000 pages of 16 KiB: the log size at which SQLite checkpoints by itself after a commit.
    while (written < 1000 * 16_384 * 1.2) {
      await sink.write(batch, 0)
      written += batch.data.length
    }
    expect(sizeOf(`${dir.file}-wal`)).toBeGreaterThan(1000 * 16_384)
    expect(sizeOf(dir.file)).toBe(before)
  })

  it('asks the other thread to checkpoint every checkpointEveryBytes: the log is copied into the file, then starts over', async () => {
    const dir = storeDir()
    const checkpoints = checkpointCounter()
    const sink = await threadTraceSink(dir, { checkpointEveryBytes: PERIOD, onCheckpointEnd: checkpoints.onCheckpointEnd })
    cleanup.push(() => sink.close())
    await expectLogCopiedEveryPeriod(dir, sink, await bulkyBatch(100, 2), checkpoints)
  })

  it('asks for a checkpoint owed while the last one ran as soon as that one ends, with no write after it', async () => {
    const dir = storeDir()
    const batch = await bulkyBatch(20, 4)
    // Every write owes a checkpoint, and writes come faster than checkpoints end (each one syncs the file twice).
    const sink = await threadTraceSink(dir, { checkpointEveryBytes: batch.data.length })
    cleanup.push(() => sink.close())
    const before = sizeOf(dir.file)
    for (let i = 0; i < 60; i++) await sink.write(batch, 0)
    // Nothing is written after the loop: the last writes reach the file only through a checkpoint asked for by the sink itself.
    await vi.waitFor(() => expect(sizeOf(dir.file)).toBeGreaterThanOrEqual(before + 60 * batch.data.length), { timeout: 10_000, interval: 10 })
  })

  it('checkpoints on the request thread once the checkpoint thread is gone: the log is still copied and starts over', async () => {
    const dir = storeDir()
    let kill: (() => Promise<void>) | undefined
    const checkpoints = checkpointCounter()
    const sink = await threadTraceSink(dir, { checkpointEveryBytes: PERIOD, onCheckpointThread: (end) => (kill = end), onCheckpointEnd: checkpoints.onCheckpointEnd })
    cleanup.push(() => sink.close())
    expect(kill).toBeDefined()
    await kill!()
    await expectLogCopiedEveryPeriod(dir, sink, await bulkyBatch(100, 3), checkpoints)
  })
})
