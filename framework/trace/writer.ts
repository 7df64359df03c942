/**
 * The batch writer: a bounded buffer between requests and the store. `push`
 * never waits and never holds more than its bound (beyond it, the trace is
 * dropped and counted). Traces wait as captured (plain data) and are built
 * into records and encoded into the open batch `BUILD_CHUNK` at a time;
 * full batches are written one transaction at a time, off the request path;
 * `close` writes everything accepted.
 */
import { BatchEncoder, type EncodedBatch } from './batch-codec.ts'
import { extract, type PendingTrace, type RawTrace } from './capture.ts'
import type { TraceConfig } from './config.ts'
import { createRecordBuilder, type RecordBuilder } from './record-builder.ts'
import type { TraceSink } from './store.ts'

export interface WriterStats {
  /** Traces taken into the buffer. */
  accepted: number
  written: number
  /** Refused because the buffer was full. */
  dropped: number
  /** Lost because they could not be built or the store failed to write them. */
  failed: number
  /** Accepted and not yet written (or failed). */
  pending: number
  /** The bound of `pending`. */
  capacity: number
  /** The highest `pending` ever reached. */
  high_water: number
  last_error: string | null
}

const PRUNE_EVERY_MS = 60_000

/**
 * Traces built at a time. One at a time, as each request ended, the builder
 * ran cold between the HTTP work and cost about 7% more CPU a request; a
 * whole batch at a time kept every request's captured data alive until the
 * write (more garbage-collector work on the 3-query route) and stalled the
 * event loop for a millisecond or two (docs/traces.md, "Cost").
 */
const BUILD_CHUNK = 64

interface OpenBatch {
  encoder: BatchEncoder
  build: RecordBuilder
}

export class TraceWriter {
  /** Traces captured and not built yet, oldest first. */
  private unbuilt: RawTrace[] = []
  /** The batch being built. */
  private open: OpenBatch | undefined
  /** Built batches waiting for their write. */
  private readonly full: EncodedBatch[] = []
  /** Traces whose bodies are still being read. */
  private readonly reading = new Set<Promise<void>>()
  private timer: ReturnType<typeof setTimeout> | undefined
  private timerDelay = 0
  private writing: Promise<void> | undefined
  private droppedSinceWrite = 0
  private lastPrune = 0
  private writtenSincePrune = 0
  private closed = false
  private readonly memory = new MemorySampler()
  readonly stats: WriterStats

  constructor(
    private readonly sink: TraceSink,
    private readonly config: TraceConfig,
    private readonly onError: (error: unknown) => void = () => {},
  ) {
    this.stats = { accepted: 0, written: 0, dropped: 0, failed: 0, pending: 0, capacity: config.bufferSize, high_water: 0, last_error: null }
  }

  /** Takes a trace; false when it was dropped (buffer full or writer closed). */
  push(pending: PendingTrace): boolean {
    const stats = this.stats
    if (this.closed || stats.pending >= this.config.bufferSize) {
      stats.dropped++
      this.droppedSinceWrite++
      return false
    }
    stats.accepted++
    if (++stats.pending > stats.high_water) stats.high_water = stats.pending
    if (pending.requestBody === null && pending.responseBody === null) this.add(pending.raw)
    else {
      const read: Promise<void> = extract(pending).then(
        (raw) => this.add(raw),
        (error: unknown) => this.lose(1, error),
      )
      this.reading.add(read)
      void read.finally(() => this.reading.delete(read))
    }
    return true
  }

  /** Writes everything accepted so far (and what arrives meanwhile), then resolves. */
  async flush(): Promise<void> {
    this.clearTimer()
    for (;;) {
      if (this.reading.size > 0) await Promise.all(this.reading)
      else if (this.writing !== undefined) await this.writing
      else if (this.unbuilt.length > 0 || this.open !== undefined || this.full.length > 0 || this.droppedSinceWrite > 0) await this.writeNext()
      else return
    }
  }

  /** Refuses new traces, writes every accepted one. */
  async close(): Promise<void> {
    this.closed = true
    await this.flush()
  }

  private add(raw: RawTrace): void {
    this.unbuilt.push(raw)
    if (this.unbuilt.length >= BUILD_CHUNK) this.build()
    if (this.writing === undefined) this.schedule(this.full.length > 0 ? 0 : this.config.flushMs)
  }

  /** Builds the captured traces into the open batch; a trace that cannot be built is lost (counted), the others are kept. */
  private build(): void {
    const raws = this.unbuilt
    this.unbuilt = []
    for (const raw of raws) {
      try {
        const batch = (this.open ??= { encoder: new BatchEncoder(), build: createRecordBuilder(this.config, this.memory.read()) })
        batch.encoder.add(batch.build(raw), raw.started_epoch)
        if (batch.encoder.count >= this.config.batchSize) {
          this.full.push(batch.encoder.finish())
          this.open = undefined
        }
      } catch (error) {
        this.lose(1, error)
      }
    }
  }

  /** Writes the next batch after `delay` ms, unless a write is already due as soon. */
  private schedule(delay: number): void {
    if (this.timer !== undefined && this.timerDelay <= delay) return
    this.clearTimer()
    this.timerDelay = delay
    this.timer = setTimeout(() => {
      this.timer = undefined
      if (this.writing === undefined) void this.writeNext()
    }, delay)
    // A pending flush must not keep a CLI process alive: close() flushes explicitly.
    ;(this.timer as { unref?: () => void }).unref?.()
  }

  private clearTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.timer = undefined
  }

  /** Writes the oldest full batch, or else the open one (and the drop count). */
  private writeNext(): Promise<void> {
    this.build()
    let batch = this.full.shift() ?? null
    if (batch === null && this.open !== undefined) {
      batch = this.open.encoder.finish()
      this.open = undefined
    }
    if (batch === null && this.droppedSinceWrite === 0) return Promise.resolve()
    const dropped = this.droppedSinceWrite
    this.droppedSinceWrite = 0
    this.writing = this.write(batch, dropped).finally(() => {
      this.writing = undefined
      if (this.full.length > 0) this.schedule(0)
      else if (this.open !== undefined || this.unbuilt.length > 0) this.schedule(this.config.flushMs)
    })
    return this.writing
  }

  private async write(batch: EncodedBatch | null, dropped: number): Promise<void> {
    const count = batch?.count ?? 0
    try {
      await this.sink.write(batch, dropped)
      this.stats.written += count
      this.stats.pending -= count
    } catch (error) {
      this.lose(count, error)
      return
    }
    const now = Date.now()
    const { retentionDays, maxTraces } = this.config
    this.writtenSincePrune += count
    // Pruning runs once a minute, or sooner when a tenth of the count limit was written since.
    if (now - this.lastPrune >= PRUNE_EVERY_MS || (maxTraces > 0 && this.writtenSincePrune >= Math.ceil(maxTraces / 10))) {
      this.lastPrune = now
      this.writtenSincePrune = 0
      if (retentionDays > 0 || maxTraces > 0) {
        await this.sink
          .prune({
            ...(retentionDays > 0 ? { olderThanMs: now - retentionDays * 86_400_000 } : {}),
            ...(maxTraces > 0 ? { maxTraces } : {}),
          })
          .catch((error: unknown) => this.fail(error))
      }
    }
  }

  /** Traces that will never be written. */
  private lose(count: number, error: unknown): void {
    this.stats.failed += count
    this.stats.pending -= count
    this.fail(error)
  }

  private fail(error: unknown): void {
    this.stats.last_error = error instanceof Error ? error.message : String(error)
    this.onError(error)
  }
}

const MEMORY_SAMPLE_MS = 1000

/**
 * Resident memory in MB where the runtime tells (Node, Bun, Deno), read at
 * most once a second: under load Node's rss() took about 100 us, a cost per
 * batch that showed in the tracing budget.
 */
class MemorySampler {
  private value: number | null = null
  private readAt = Number.NEGATIVE_INFINITY

  read(): number | null {
    const now = Date.now()
    if (now - this.readAt < MEMORY_SAMPLE_MS) return this.value
    this.readAt = now
    const rss = (globalThis as { process?: { memoryUsage?: { rss?: () => number } } }).process?.memoryUsage?.rss
    if (typeof rss !== 'function') return (this.value = null)
    try {
      return (this.value = Math.round((rss() / 1_048_576) * 10) / 10)
    } catch {
      return (this.value = null)
    }
  }
}
