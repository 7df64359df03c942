/**
 * The batch writer: a bounded queue between requests and the store. `push`
 * never waits and never grows the queue past its bound (beyond it, the trace
 * is dropped and counted); batches are built and written one transaction at
 * a time, off the request path; `close` writes everything accepted.
 */
import { extract, type PendingTrace, type RawTrace } from './capture.ts'
import type { TraceConfig } from './config.ts'
import type { TraceSink } from './store.ts'

export interface WriterStats {
  /** Traces taken into the queue. */
  accepted: number
  written: number
  /** Refused because the queue was full. */
  dropped: number
  /** Lost because the store failed to write them. */
  failed: number
  /** Waiting or being written now. */
  pending: number
  /** The bound of `pending`. */
  capacity: number
  /** The highest `pending` ever reached. */
  high_water: number
  last_error: string | null
}

const PRUNE_EVERY_MS = 60_000

export class TraceWriter {
  private queue: PendingTrace[] = []
  private inFlight = 0
  private timer: ReturnType<typeof setTimeout> | undefined
  private writing: Promise<void> | undefined
  private droppedSinceWrite = 0
  private lastPrune = 0
  private writtenSincePrune = 0
  private closed = false
  readonly stats: WriterStats

  constructor(
    private readonly sink: TraceSink,
    private readonly config: TraceConfig,
    private readonly onError: (error: unknown) => void = () => {},
  ) {
    this.stats = { accepted: 0, written: 0, dropped: 0, failed: 0, pending: 0, capacity: config.bufferSize, high_water: 0, last_error: null }
  }

  /** Queues a trace; false when it was dropped (queue full or writer closed). */
  push(pending: PendingTrace): boolean {
    if (this.closed || this.queue.length + this.inFlight >= this.config.bufferSize) {
      this.stats.dropped++
      this.droppedSinceWrite++
      return false
    }
    this.queue.push(pending)
    this.stats.accepted++
    const size = this.queue.length + this.inFlight
    this.stats.pending = size
    if (size > this.stats.high_water) this.stats.high_water = size
    if (this.writing === undefined) {
      if (this.queue.length >= this.config.batchSize) this.schedule(0)
      else if (this.timer === undefined) this.schedule(this.config.flushMs)
    }
    return true
  }

  /** Writes everything queued so far (and what arrives meanwhile), then resolves. */
  async flush(): Promise<void> {
    this.clearTimer()
    while (this.writing !== undefined || this.queue.length > 0 || this.droppedSinceWrite > 0) {
      if (this.writing !== undefined) await this.writing
      else await this.writeBatch()
    }
  }

  /** Refuses new traces, writes every accepted one. */
  async close(): Promise<void> {
    this.closed = true
    await this.flush()
  }

  private schedule(delay: number): void {
    this.clearTimer()
    this.timer = setTimeout(() => {
      this.timer = undefined
      if (this.writing === undefined) void this.writeBatch()
    }, delay)
    // A pending flush must not keep a CLI process alive: close() flushes explicitly.
    ;(this.timer as { unref?: () => void }).unref?.()
  }

  private clearTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.timer = undefined
  }

  private writeBatch(): Promise<void> {
    const batch = this.queue.splice(0, this.config.batchSize)
    this.inFlight = batch.length
    const dropped = this.droppedSinceWrite
    this.droppedSinceWrite = 0
    this.writing = this.write(batch, dropped).finally(() => {
      this.inFlight = 0
      this.writing = undefined
      this.stats.pending = this.queue.length
      if (this.queue.length > 0) this.schedule(this.queue.length >= this.config.batchSize ? 0 : this.config.flushMs)
    })
    return this.writing
  }

  private async write(batch: PendingTrace[], dropped: number): Promise<void> {
    const traces: RawTrace[] = []
    for (const pending of batch) {
      try {
        traces.push(pending.requestBody === null && pending.responseBody === null ? pending.raw : await extract(pending))
      } catch (error) {
        this.stats.failed++
        this.fail(error)
      }
    }
    try {
      await this.sink.write(traces, dropped, memoryMb())
      this.stats.written += traces.length
    } catch (error) {
      this.stats.failed += traces.length
      this.fail(error)
      return
    }
    const now = Date.now()
    const { retentionDays, maxTraces } = this.config
    this.writtenSincePrune += traces.length
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

  private fail(error: unknown): void {
    this.stats.last_error = error instanceof Error ? error.message : String(error)
    this.onError(error)
  }
}

/** Resident memory in MB where the runtime tells (Node, Bun, Deno), sampled once per batch. */
function memoryMb(): number | null {
  const rss = (globalThis as { process?: { memoryUsage?: { rss?: () => number } } }).process?.memoryUsage?.rss
  if (typeof rss !== 'function') return null
  try {
    return Math.round((rss() / 1_048_576) * 10) / 10
  } catch {
    return null
  }
}
