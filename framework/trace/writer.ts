/**
 * The batch writer: a bounded buffer between requests and the store. `push`
 * never waits and never holds more than its bound (beyond it, the trace is
 * dropped and counted). Traces wait as captured (plain data) and are built
 * into records and encoded into the open batch `BUILD_CHUNK` at a time;
 * full batches are written one transaction at a time, off the request path;
 * a store that is locked (another process writing) is tried again later,
 * the batch kept; `close` writes everything accepted.
 */
import { BatchEncoder, type EncodedBatch } from './batch-codec.ts'
import { extract, type PendingTrace, type RawTrace } from './capture.ts'
import type { TraceConfig } from './config.ts'
import { createRecordBuilder, type RecordBuilder } from './record-builder.ts'
import { isLockError, type TraceSink } from './store.ts'

export interface WriterStats {
  /** Traces taken into the buffer. */
  accepted: number
  written: number
  /**
   * Refused because the buffer was full: the one counter of the store (every
   * process that writes to it, since it was created, as `svc log:stats` shows
   * it), as last written by this process, plus what it dropped since.
   */
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

/** Automatic pruning runs this often, whether traces are written or not. */
export const PRUNE_EVERY_MS = 60_000
/** The longest wait before a locked store is tried again. */
const MAX_RETRY_MS = 5000
/** Tries on a locked store when stopping, before what is left is given up. */
const ATTEMPTS_AT_CLOSE = 6

/**
 * Traces built at a time. One at a time, as each request ended, the builder
 * ran cold between the HTTP work and cost about 7% more CPU a request; a
 * whole batch at a time kept every request's captured data alive until the
 * write (more garbage-collector work on the 3-query route) and stalled the
 * event loop for a millisecond or two (docs/traces.md, "Cost"). Traces
 * waiting here survive the young-generation collections that happen
 * meanwhile: 64 at a time, they and the batch's text were 45 KB of survivors
 * a collection against 2.5 KB untraced; 16 at a time with the text off the
 * heap, 13 KB, and the pauses a quarter shorter, for the same CPU.
 */
const BUILD_CHUNK = 16

/**
 * A batch is also closed once its text reaches this size, whatever its count:
 * requests whose bodies differ (up to `TRACE_BODY_LIMIT` each way) would
 * otherwise make a row, and a string to decode for every trace read from it,
 * of tens of megabytes.
 */
export const MAX_BATCH_BYTES = 4 * 1024 * 1024

interface OpenBatch {
  encoder: BatchEncoder
  build: RecordBuilder
}

export interface WriterOptions {
  /** How often pruning runs (default once a minute); for tests. */
  pruneEveryMs?: number
}

export class TraceWriter {
  /** Traces captured and not built yet, oldest first. */
  private unbuilt: RawTrace[] = []
  /** The batch being built. */
  private open: OpenBatch | undefined
  /** Built batches waiting for their write. */
  private readonly full: EncodedBatch[] = []
  /** Traces whose bodies are still being read, with what stops the read. */
  private readonly reading = new Map<Promise<void>, (() => void) | null>()
  private timer: ReturnType<typeof setTimeout> | undefined
  private timerDelay = 0
  /** When the timer should have fired: one long past due was never run (Workers fire no timer after the response). */
  private timerDue = 0
  /** Since when the oldest unwritten trace has waited (undefined: none waits). */
  private waitingSince: number | undefined
  /** When this writer last dropped a trace. */
  private lastDropAt: number | undefined
  /** When this writer last lost traces it had accepted (the store refused them, or they could not be built). */
  private lastLossAt: number | undefined
  private writing: Promise<void> | undefined
  private droppedSinceWrite = 0
  /** Whether the stored drop counter was read back since start (a write returns it too). */
  private droppedKnown = false
  private lastPrune = Date.now()
  private readonly pruneEvery: number
  private writtenSincePrune = 0
  private pruneDue = false
  private readonly pruneTimer: ReturnType<typeof setInterval> | undefined
  private retries = 0
  private closed = false
  private readonly memory = new MemorySampler()
  readonly stats: WriterStats

  constructor(
    private readonly sink: TraceSink,
    private readonly config: TraceConfig,
    private readonly onError: (error: unknown) => void = () => {},
    options: WriterOptions = {},
  ) {
    this.stats = { accepted: 0, written: 0, dropped: 0, failed: 0, pending: 0, capacity: config.bufferSize, high_water: 0, last_error: null }
    // The counter in the store includes other processes and earlier runs: /health/ready shows that one counter.
    sink.droppedCount?.().then(
      (stored) => {
        if (!this.droppedKnown) this.stats.dropped += stored
        this.droppedKnown = true
      },
      () => {},
    )
    const every = options.pruneEveryMs ?? PRUNE_EVERY_MS
    this.pruneEvery = every
    if (config.retentionDays > 0 || config.maxTraces > 0) {
      // Idle or not: traces age past the retention whether or not new ones arrive.
      this.pruneTimer = setInterval(() => this.prunePeriodically(every), every)
      ;(this.pruneTimer as { unref?: () => void }).unref?.()
    }
  }

  /**
   * Takes a trace; false when it was dropped (buffer full or writer closed).
   * `keepAlive` (Workers' `ctx.waitUntil`) is handed the write of this trace:
   * where nothing runs after the response unless it is waited for, the trace
   * is written before the request's work ends, not by a timer.
   */
  push(pending: PendingTrace, keepAlive?: (work: Promise<unknown>) => void): boolean {
    const stats = this.stats
    if (this.closed || stats.pending >= this.config.bufferSize) {
      stats.dropped++
      this.droppedSinceWrite++
      this.lastDropAt = Date.now()
      // Stored soon even when nothing else is written (every trace dropped while the buffer is full).
      if (this.writing === undefined && !this.closed) this.schedule(this.config.flushMs)
      return false
    }
    stats.accepted++
    if (stats.pending === 0) this.waitingSince = Date.now()
    if (++stats.pending > stats.high_water) stats.high_water = stats.pending
    if (pending.requestBody === null && pending.responseBody === null) this.add(pending.raw)
    else {
      const read: Promise<void> = extract(pending).then(
        (raw) => this.add(raw),
        (error: unknown) => this.lose(1, error),
      )
      this.reading.set(read, pending.abandon)
      void read.finally(() => this.reading.delete(read))
    }
    if (keepAlive !== undefined) keepAlive(this.flush().catch(() => {}))
    return true
  }

  /**
   * Why the writer is behind, or undefined when it is not: traces accepted
   * and none written for longer than `TRACE_FLUSH_MS` (plus a second for the
   * write itself), or traces dropped or lost (a store that refuses every
   * write: read-only, full disk) in the last minute.
   */
  lag(now = Date.now()): string | undefined {
    const waited = this.waitingSince === undefined ? 0 : now - this.waitingSince
    if (this.stats.pending > 0 && waited > this.config.flushMs + 1000) {
      return `${this.stats.pending} trace(s) accepted and not written for ${Math.round(waited)} ms (TRACE_FLUSH_MS is ${this.config.flushMs})`
    }
    if (this.lastDropAt !== undefined && now - this.lastDropAt < 60_000) return 'traces were dropped in the last minute (the buffer was full)'
    // A failed write empties `pending`: without this, a store refusing every write looked healthy.
    if (this.lastLossAt !== undefined && now - this.lastLossAt < 60_000) {
      return `traces could not be written in the last minute (${this.stats.failed} lost since start): ${this.stats.last_error ?? 'unknown error'}`
    }
    return undefined
  }

  /** Writes everything accepted so far (and what arrives meanwhile), then resolves. */
  async flush(): Promise<void> {
    this.clearTimer()
    let tried = false
    for (;;) {
      if (this.reading.size > 0) await Promise.all(this.reading.keys())
      else if (this.writing !== undefined) await this.writing
      else if (this.unbuilt.length > 0 || this.open !== undefined || this.full.length > 0 || this.droppedSinceWrite > 0) {
        // A store that was locked is tried at once, then again only after a wait.
        if (this.retries > 0 && tried) {
          // The store is locked: a stop waits for it a few times, then gives up rather than never ending.
          if (this.closed && this.retries >= ATTEMPTS_AT_CLOSE) {
            this.giveUp()
            continue
          }
          await new Promise((resolve) => setTimeout(resolve, this.retryDelay()))
          this.clearTimer()
          if (this.writing !== undefined) continue
        }
        tried = true
        await this.writeNext()
      } else return
    }
  }

  /**
   * Refuses new traces and writes every accepted one. Bodies still being
   * read stop at once (kept as far as they came, marked incomplete), so a
   * stop never waits for a client.
   */
  async close(): Promise<void> {
    this.closed = true
    if (this.pruneTimer !== undefined) clearInterval(this.pruneTimer)
    for (const abandon of this.reading.values()) abandon?.()
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
        if (batch.encoder.count >= this.config.batchSize || batch.encoder.size >= MAX_BATCH_BYTES) {
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
    const now = Date.now()
    // A timer long past due never ran (a runtime that fires none after the response): replaced, not waited for.
    if (this.timer !== undefined && this.timerDelay <= delay && now <= this.timerDue + Math.max(1000, this.timerDelay)) return
    this.clearTimer()
    this.timerDelay = delay
    this.timerDue = now + delay
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
    this.writing = this.write(batch, dropped).finally(() => this.afterWrite())
    return this.writing
  }

  private retryDelay(): number {
    return Math.min(MAX_RETRY_MS, Math.max(this.config.flushMs, 50) * 2 ** (this.retries - 1))
  }

  /** At close, after ATTEMPTS_AT_CLOSE tries on a locked store: what is left is lost (counted as failed). */
  private giveUp(): void {
    this.build()
    if (this.open !== undefined) this.full.push(this.open.encoder.finish())
    this.open = undefined
    const count = this.full.splice(0).reduce((sum, batch) => sum + batch.count, 0)
    this.droppedSinceWrite = 0
    this.retries = 0
    this.lose(count, new Error(`the trace store stayed locked: ${count} trace(s) were not written at close`))
  }

  private afterWrite(): void {
    this.writing = undefined
    // A locked store: tried again later, waiting longer each time, up to MAX_RETRY_MS.
    if (this.retries > 0) this.schedule(this.retryDelay())
    else if (this.full.length > 0) this.schedule(0)
    else if (this.open !== undefined || this.unbuilt.length > 0 || this.droppedSinceWrite > 0) this.schedule(this.config.flushMs)
    else if (this.pruneDue) this.writing = this.prune().finally(() => this.afterWrite())
  }

  private async write(batch: EncodedBatch | null, dropped: number): Promise<void> {
    const count = batch?.count ?? 0
    try {
      const storedDropped = await this.sink.write(batch, dropped)
      if (typeof storedDropped === 'number') {
        this.stats.dropped = storedDropped + this.droppedSinceWrite
        this.droppedKnown = true
      }
      this.stats.written += count
      this.stats.pending -= count
      this.waitingSince = this.stats.pending > 0 ? Date.now() : undefined
      this.retries = 0
    } catch (error) {
      if (!isLockError(error)) {
        this.lose(count, error)
        // The drop count is not lost with the batch: it goes with the next write.
        this.droppedSinceWrite += dropped
        return
      }
      // Another connection holds the store's write lock: the batch waits (it still counts against the bound) and is tried again.
      if (batch !== null) this.full.unshift(batch)
      this.droppedSinceWrite += dropped
      this.fail(error)
      this.retries++
      return
    }
    this.writtenSincePrune += count
    // Pruning runs once a minute (see the timer), or sooner when a tenth of the count limit was written since.
    // (Also checked here: a runtime that runs no timer between requests, Workers, still prunes.)
    const { maxTraces, retentionDays } = this.config
    const periodic = (retentionDays > 0 || maxTraces > 0) && Date.now() - this.lastPrune >= this.pruneEvery
    if (this.pruneDue || periodic || (maxTraces > 0 && this.writtenSincePrune >= Math.ceil(maxTraces / 10))) await this.prune()
  }

  private prunePeriodically(every: number): void {
    if (Date.now() - this.lastPrune < every * 0.9) return
    if (this.writing !== undefined) {
      this.pruneDue = true
      return
    }
    this.writing = this.prune().finally(() => this.afterWrite())
  }

  private async prune(): Promise<void> {
    const now = Date.now()
    this.lastPrune = now
    this.writtenSincePrune = 0
    this.pruneDue = false
    const { retentionDays, maxTraces } = this.config
    if (retentionDays <= 0 && maxTraces <= 0) return
    await this.sink
      .prune({
        ...(retentionDays > 0 ? { olderThanMs: now - retentionDays * 86_400_000 } : {}),
        ...(maxTraces > 0 ? { maxTraces } : {}),
      })
      .catch((error: unknown) => this.fail(error))
  }

  /** Traces that will never be written. */
  private lose(count: number, error: unknown): void {
    this.stats.failed += count
    this.lastLossAt = Date.now()
    this.stats.pending -= count
    if (this.stats.pending === 0) this.waitingSince = undefined
    this.fail(error)
  }

  private fail(error: unknown): void {
    this.stats.last_error = errorText(error)
    this.onError(error)
  }
}

/** An error's message, with its cause's (the database layer wraps SQLITE_BUSY in a 503 whose message says less). */
function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  return error.cause instanceof Error ? `${error.message} (${error.cause.message})` : error.message
}

const MEMORY_SAMPLE_MS = 1000

/**
 * `memory_mb`: the resident set size (RSS) of the whole process in MB, where
 * the runtime tells (Node, Bun, Deno), read at most once a second, when a
 * batch's records are built. A gauge of the process around the time of the
 * request, not what the request used: that cannot be measured per request
 * in a process serving many at once. Under load Node's rss() took about
 * 100 us, a cost per batch that showed in the tracing budget.
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
