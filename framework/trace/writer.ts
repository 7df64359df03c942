/**
 * The batch writer: a bounded buffer between requests and the store. `push`
 * never waits and never holds more than its bound (beyond it, the trace is
 * dropped and counted). Traces wait as captured (plain data) until their
 * batch is written: then, in a task of its own between requests, the whole
 * batch is built into records, encoded and written in one transaction.
 * Building records one at a time as each request ended cost about a tenth
 * more CPU a request (docs/traces.md, "Cost"): interleaved with the HTTP
 * work, the builder's code and data are never warm. `close` writes
 * everything accepted.
 */
import { BatchEncoder, type EncodedBatch } from './batch-codec.ts'
import { extract, type PendingTrace, type RawTrace } from './capture.ts'
import type { TraceConfig } from './config.ts'
import { createRecordBuilder } from './record-builder.ts'
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

export class TraceWriter {
  /** Traces ready to be built and written, oldest first. */
  private waiting: RawTrace[] = []
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
      else if (this.waiting.length > 0 || this.droppedSinceWrite > 0) await this.writeNext()
      else return
    }
  }

  /** Refuses new traces, writes every accepted one. */
  async close(): Promise<void> {
    this.closed = true
    await this.flush()
  }

  private add(raw: RawTrace): void {
    this.waiting.push(raw)
    if (this.writing === undefined) this.schedule(this.waiting.length >= this.config.batchSize ? 0 : this.config.flushMs)
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

  /** Builds and writes the oldest batch of waiting traces (and the drop count). */
  private writeNext(): Promise<void> {
    const raws = this.waiting.length <= this.config.batchSize ? this.waiting : this.waiting.slice(0, this.config.batchSize)
    this.waiting = raws === this.waiting ? [] : this.waiting.slice(raws.length)
    const batch = raws.length === 0 ? null : this.encode(raws)
    if (batch === null && this.droppedSinceWrite === 0) return Promise.resolve()
    const dropped = this.droppedSinceWrite
    this.droppedSinceWrite = 0
    this.writing = this.write(batch, dropped).finally(() => {
      this.writing = undefined
      if (this.waiting.length > 0) this.schedule(this.waiting.length >= this.config.batchSize ? 0 : this.config.flushMs)
    })
    return this.writing
  }

  /** The traces as one encoded batch; a trace that cannot be built is lost (counted), the others are kept. */
  private encode(raws: readonly RawTrace[]): EncodedBatch | null {
    const encoder = new BatchEncoder()
    const build = createRecordBuilder(this.config, this.memory.read())
    for (const raw of raws) {
      try {
        encoder.add(build(raw), raw.started_epoch)
      } catch (error) {
        this.lose(1, error)
      }
    }
    return encoder.count === 0 ? null : encoder.finish()
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
