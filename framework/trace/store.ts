/**
 * The trace store, in a libSQL database of its own (`storage/traces.sqlite`
 * by default). Each batch the writer flushes is one row, written in one
 * statement: its records, each stored as what differs from the one before
 * (`batch-codec.ts`). A row per trace cost more CPU per request than the
 * tracing budget allows (an insert with its index entries is worth a fifth
 * of a whole request); the tools read the batches back and filter in
 * JavaScript, newest first, stopping as soon as they have enough.
 */
import type { Database } from '../database/database.ts'
import { decodeBatch, encodeBatch, type EncodedBatch } from './batch-codec.ts'
import { pathMatcher } from './path-glob.ts'
import type { TraceRecord } from './record.ts'

/** Where the writer sends each batch (written in this thread or another). */
export interface TraceSink {
  /**
   * Writes the batch (if any) in one transaction; `dropped` adds to the
   * stored drop counter, and the counter's new value is returned then.
   */
  write(batch: EncodedBatch | null, dropped: number): Promise<number | void>
  /** Deletes what is older than `olderThanMs` (epoch ms) and beyond the newest `maxTraces`; returns how many. */
  prune(options: { olderThanMs?: number; maxTraces?: number }): Promise<number>
  /** The stored drop counter (every process, since the store was created). */
  droppedCount?(): Promise<number>
}

/**
 * The writer's one hot statement, the batch insert, prepared once on a
 * connection of its own, where a runtime's driver allows it (svc/node's
 * writers). Through a client, each insert is prepared again and its result
 * converted: on Node a third of each write, and the event loop waits for all
 * of it (docs/traces.md, "Storage").
 */
export interface PreparedBatchInsert {
  /** Inserts the batch in one transaction of its own; throws SQLite's error, a lock's included. */
  run(batch: EncodedBatch): void
  close(): void
}

export const INSERT_BATCH_SQL = 'insert into svc_trace_batches (first_at, last_at, count, data) values (?, ?, ?, ?)'

/** A sink that writes to `store` in this thread (any runtime). */
export function storeSink(store: TraceStore): TraceSink {
  return {
    write: (batch, dropped) => store.writeBatch(batch, dropped),
    prune: (options) => store.prune(options),
    droppedCount: () => store.droppedCount(),
  }
}

export interface TraceFilter {
  /** Substring, or a glob when it has `*`, `?` or `[` (pathMatcher: `*` is one segment, `**` any). */
  path?: string
  /** Paths to leave out, each as `path` is read. */
  ignore?: readonly string[]
  /** `401`, `4xx`, or a comma-separated mix. */
  status?: string
  method?: string
  ip?: string
  /** 5xx responses (every exception that is not an HTTP error ends as one). */
  error?: boolean
  /** Epoch ms: traces that began at or after. */
  sinceMs?: number
  /** Traces at least this long. */
  minDurationMs?: number
  /** The matched route pattern, exactly. */
  route?: string
  /** Traces that emitted an event of this class name (`emit(event, c)`), in any case. */
  event?: string
  /** Only traces written after this one (for tail). */
  afterTraceId?: string
  limit?: number
  /** Default newest first. */
  order?: 'newest' | 'oldest' | 'slowest'
}

/** One line of a list: the record's searchable fields. */
export interface TraceRow {
  trace_id: string
  started_at: number
  method: string
  path: string
  route: string | null
  status_code: number
  duration_ms: number
  ip: string | null
  user_id: string | null
  exception: string | null
  error: number
  query_count: number
  n_plus_one: number
}

export const TRACE_SCHEMA = [
  `create table if not exists svc_trace_batches (
    id integer primary key,
    first_at integer not null,
    last_at integer not null,
    count integer not null,
    data text not null
  )`,
  'create index if not exists svc_trace_batches_last_at on svc_trace_batches (last_at)',
  'create table if not exists svc_trace_counters (name text primary key, value integer not null)',
]

/** Batches read per query while scanning. */
const PAGE = 16
/**
 * Batches deleted per statement when pruning: each statement is its own
 * short transaction, so that a large cleanup never holds the store's write
 * lock long enough to make the server's writer wait.
 */
const PRUNE_CHUNK = 16

interface Batch {
  id: number
  first_at: number
  last_at: number
  data: string
}

export class TraceStore {
  private ready: Promise<void> | undefined

  /** @param batchInsert the batch insert prepared on a connection of its own; without it, `db` runs it. */
  constructor(
    readonly db: Database,
    private readonly batchInsert?: PreparedBatchInsert,
  ) {}

  /** Creates the tables once (idempotent). */
  init(): Promise<void> {
    this.ready ??= this.db.batch(TRACE_SCHEMA).then(() => undefined)
    return this.ready
  }

  /**
   * Writes one encoded batch (and adds `dropped` to the drop counter) in one
   * transaction; returns the counter's new value when it was changed.
   */
  async writeBatch(batch: EncodedBatch | null, dropped = 0): Promise<number | undefined> {
    await this.init()
    if (this.batchInsert !== undefined && batch !== null && batch.count > 0 && dropped === 0) {
      this.batchInsert.run(batch)
      return undefined
    }
    const statements: Array<{ sql: string; args: Array<string | number> }> = []
    if (batch !== null && batch.count > 0) {
      statements.push({ sql: INSERT_BATCH_SQL, args: [batch.first_at, batch.last_at, batch.count, batch.data] })
    }
    if (dropped > 0) {
      statements.push({
        sql: "insert into svc_trace_counters (name, value) values ('dropped', ?) on conflict (name) do update set value = value + excluded.value returning value",
        args: [dropped],
      })
    }
    // A single statement is its own transaction: no BEGIN/COMMIT round for the common case.
    if (statements.length === 0) return undefined
    const results = statements.length === 1 ? [await this.db.execute(statements[0]!.sql, statements[0]!.args)] : await this.db.batch(statements as never)
    return dropped > 0 ? Number(results[results.length - 1]!.rows[0]?.value ?? 0) : undefined
  }

  /** Writes finished records as one batch. */
  async writeRecords(records: readonly TraceRecord[], dropped = 0): Promise<void> {
    await this.writeBatch(encodeBatch(records, records.map(startOf)), dropped)
  }

  /** Records newest first (by batch, then by start time within it), optionally only batches reaching `sinceMs`. */
  async *newest(options: { sinceMs?: number; where?: { sql: string; args: unknown[] } } = {}): AsyncGenerator<TraceRecord> {
    await this.init()
    let before = Number.MAX_SAFE_INTEGER
    for (;;) {
      const clauses = ['id < ?']
      const args: unknown[] = [before]
      if (options.sinceMs !== undefined) {
        clauses.push('last_at >= ?')
        args.push(options.sinceMs)
      }
      if (options.where !== undefined) {
        clauses.push(options.where.sql)
        args.push(...options.where.args)
      }
      const result = await this.db.execute(
        `select id, first_at, last_at, data from svc_trace_batches where ${clauses.join(' and ')} order by id desc limit ${PAGE}`,
        args as never,
      )
      const batches = result.rows as unknown as Batch[]
      for (const batch of batches) {
        const records = decodeBatch(batch.data)
        // Written in the order requests ended: reversed, then by start time (stable, so ties stay newest first).
        records.reverse().sort((a, b) => (a.timestamp < b.timestamp ? 1 : a.timestamp > b.timestamp ? -1 : 0))
        for (const record of records) yield record
      }
      if (batches.length < PAGE) return
      before = Number(batches[batches.length - 1]!.id)
    }
  }

  /**
   * The records the filter selects, newest first, one at a time (up to
   * `filter.limit`; `order` is not applied): a caller that keeps only what it
   * needs of each (a row, a count) never holds the whole store, bodies and
   * statements included.
   */
  async *matching(filter: TraceFilter = {}): AsyncGenerator<TraceRecord> {
    const matches = compileFilter(filter)
    const limit = filter.limit ?? Number.POSITIVE_INFINITY
    if (limit <= 0) return
    let found = 0
    for await (const record of this.newest({ sinceMs: filter.sinceMs })) {
      if (filter.afterTraceId !== undefined && record.trace_id === filter.afterTraceId) return
      if (!matches(record)) continue
      yield record
      if (++found >= limit) return
    }
  }

  async records(filter: TraceFilter = {}): Promise<TraceRecord[]> {
    const { limit, order, ...rest } = filter
    if (limit !== undefined && limit <= 0) return []
    if (order === 'slowest') return this.slowest(rest, limit ?? Number.POSITIVE_INFINITY)
    const out: TraceRecord[] = []
    for await (const record of this.matching(order === 'oldest' ? rest : filter)) out.push(record)
    if (order === 'oldest') return out.reverse().slice(0, limit)
    return out
  }

  /** The `limit` longest matches, longest first (ties newest first), keeping no more than `limit` at a time. */
  private async slowest(filter: TraceFilter, limit: number): Promise<TraceRecord[]> {
    const out: TraceRecord[] = []
    for await (const record of this.matching(filter)) {
      // After every kept record at least as long: a later (older) one loses ties, as a stable sort would have it.
      let low = 0
      let high = out.length
      while (low < high) {
        const middle = (low + high) >> 1
        if (out[middle]!.duration_ms >= record.duration_ms) low = middle + 1
        else high = middle
      }
      if (low >= limit) continue
      out.splice(low, 0, record)
      if (out.length > limit) out.pop()
    }
    return out
  }

  /** Rows of the matches, newest first (built one record at a time: log:stats reads a week of traces). */
  async search(filter: TraceFilter = {}): Promise<TraceRow[]> {
    if (filter.order !== undefined && filter.order !== 'newest') return (await this.records(filter)).map(rowOf)
    const rows: TraceRow[] = []
    for await (const record of this.matching(filter)) rows.push(rowOf(record))
    return rows
  }

  /** Traces the filter selects (without one: every stored trace, counted without reading them). */
  async count(filter: TraceFilter = {}): Promise<number> {
    if (Object.keys(filter).length === 0) {
      await this.init()
      const result = await this.db.execute('select coalesce(sum(count), 0) as n from svc_trace_batches')
      return Number(result.rows[0]!.n)
    }
    let count = 0
    for await (const _ of this.matching({ ...filter, limit: undefined })) count++
    return count
  }

  /** Traces that began before `cutoff` (epoch ms): what `prune({ olderThanMs: cutoff })` would delete. */
  async countOlderThan(cutoff: number): Promise<number> {
    await this.init()
    const whole = await this.db.execute('select coalesce(sum(count), 0) as n from svc_trace_batches where last_at < ?', [cutoff])
    let count = Number(whole.rows[0]!.n)
    const partial = await this.db.execute('select data from svc_trace_batches where first_at < ? and last_at >= ?', [cutoff, cutoff])
    for (const row of partial.rows as unknown as Array<{ data: string }>) {
      count += decodeBatch(row.data).filter((record) => Date.parse(record.timestamp) < cutoff).length
    }
    return count
  }

  async get(traceId: string): Promise<TraceRecord | undefined> {
    for await (const record of this.newest({ where: { sql: 'instr(data, ?) > 0', args: [`"trace_id":"${traceId}"`] } })) {
      if (record.trace_id === traceId) return record
    }
    return undefined
  }

  /** Trace ids starting with `prefix` (so a shortened id can be used), at most `limit`. */
  async idsStartingWith(prefix: string, limit = 2): Promise<string[]> {
    const ids: string[] = []
    for await (const record of this.newest({ where: { sql: 'instr(data, ?) > 0', args: [`"trace_id":"${prefix}`] } })) {
      if (record.trace_id.startsWith(prefix) && !ids.includes(record.trace_id)) ids.push(record.trace_id)
      if (ids.length >= limit) break
    }
    return ids
  }

  /** Records of batches that mention `text` anywhere (a cheap pre-filter for db:why), newest first. */
  async recordsMentioning(text: string, limit: number): Promise<TraceRecord[]> {
    const out: TraceRecord[] = []
    for await (const record of this.newest({ where: { sql: 'instr(lower(data), lower(?)) > 0', args: [text] } })) {
      out.push(record)
      if (out.length >= limit) break
    }
    return out
  }

  async droppedCount(): Promise<number> {
    await this.init()
    const result = await this.db.execute("select value from svc_trace_counters where name = 'dropped'")
    return Number(result.rows[0]?.value ?? 0)
  }

  /**
   * Deletes traces that began before `olderThanMs` (a batch partly kept is
   * rewritten) and the batches that lie wholly beyond the newest `maxTraces`
   * (so up to a batch more may stay: rewriting one would cost the writer a
   * decode and an encode of a whole batch each time). Returns how many.
   */
  async prune(options: { olderThanMs?: number; maxTraces?: number }): Promise<number> {
    await this.init()
    let deleted = 0
    const cutoff = options.olderThanMs
    if (cutoff !== undefined) {
      deleted += await this.deleteBatches('last_at < ?', [cutoff])
      const partial = await this.db.execute('select id, first_at, last_at, data from svc_trace_batches where first_at < ?', [cutoff])
      for (const batch of partial.rows as unknown as Batch[]) {
        deleted += await this.rewrite(batch, (records) => records.filter((record) => Date.parse(record.timestamp) >= cutoff))
      }
    }
    const max = options.maxTraces
    if (max !== undefined && max > 0) {
      // Batches newest first with the traces of the batches newer than each: those with `max` or more newer go.
      const beyond = await this.db.execute(
        `select max(id) as last from (
           select id, sum(count) over (order by id desc) - count as newer from svc_trace_batches
         ) where newer >= ?`,
        [max],
      )
      const last = (beyond.rows[0] as unknown as { last: number | null }).last
      if (last !== null) deleted += await this.deleteBatches('id <= ?', [last])
    }
    return deleted
  }

  /**
   * Deletes the batches `where` selects, PRUNE_CHUNK at a time, each chunk
   * its own statement (a short transaction), pausing between chunks so that
   * another writer waiting for the lock gets it; returns the traces deleted,
   * as the deleted rows counted them.
   */
  private async deleteBatches(where: string, args: Array<string | number>): Promise<number> {
    let deleted = 0
    for (;;) {
      const result = await this.db.execute(
        `delete from svc_trace_batches where id in (select id from svc_trace_batches where ${where} order by id limit ${PRUNE_CHUNK}) returning count`,
        args,
      )
      for (const row of result.rows) deleted += Number(row.count)
      if (result.rows.length < PRUNE_CHUNK) return deleted
      await new Promise((resolve) => setTimeout(resolve, 2))
    }
  }

  private async rewrite(batch: Batch, keep: (records: TraceRecord[]) => TraceRecord[]): Promise<number> {
    const records = decodeBatch(batch.data)
    const kept = keep([...records])
    if (kept.length === 0) await this.db.execute('delete from svc_trace_batches where id = ?', [batch.id])
    else if (kept.length < records.length) {
      const encoded = encodeBatch(kept, kept.map(startOf))
      await this.db.execute('update svc_trace_batches set first_at = ?, last_at = ?, count = ?, data = ? where id = ?', [
        encoded.first_at,
        encoded.last_at,
        encoded.count,
        encoded.data,
        batch.id,
      ])
    }
    return records.length - kept.length
  }

  /**
   * Copies the write-ahead log into the database file without waiting for
   * any reader or writer (SQLite's PASSIVE checkpoint), again while a write
   * that landed meanwhile keeps it from finishing (four tries at most): once
   * all of it is copied, the next write starts the log over instead of
   * growing it. For a local SQLite file; returns the log's frames left
   * uncopied (0: all of it).
   */
  async checkpoint(): Promise<number> {
    let left = 0
    for (let attempt = 0; attempt < CHECKPOINT_TRIES; attempt++) {
      const row = (await this.db.execute('pragma wal_checkpoint(passive)')).rows[0] as unknown as { log: number; checkpointed: number } | undefined
      // -1 and -1: not in WAL mode, nothing to copy.
      left = row === undefined || row.log < 0 ? 0 : Number(row.log) - Number(row.checkpointed)
      if (left <= 0) return 0
    }
    return left
  }

  close(): void {
    this.batchInsert?.close()
    this.db.close()
  }
}

/** Checkpoints run back to back by `checkpoint()` while writes keep landing. */
const CHECKPOINT_TRIES = 4

const startOf = (record: TraceRecord): number => Date.parse(record.timestamp)

/**
 * SQLite's answer when another connection holds the lock (after the
 * connection's busy timeout, if any), as the driver gives it, as the database
 * layer wraps it (a ServiceBusyError whose cause it is), or as a worker
 * thread reports it (its message).
 */
export function isLockError(error: unknown): boolean {
  for (let cause = error, depth = 0; cause !== undefined && cause !== null && depth < 5; depth++) {
    const text = cause instanceof Error ? `${(cause as { code?: unknown }).code ?? ''} ${cause.message}` : String(cause)
    if (/SQLITE_BUSY|SQLITE_LOCKED|database is locked/i.test(text)) return true
    cause = cause instanceof Error ? cause.cause : undefined
  }
  return false
}

export function isError(record: Pick<TraceRecord, 'status_code'>): boolean {
  return record.status_code >= 500
}

export function rowOf(record: TraceRecord): TraceRow {
  return {
    trace_id: record.trace_id,
    started_at: Date.parse(record.timestamp),
    method: record.method,
    path: record.path,
    route: record.route,
    status_code: record.status_code,
    duration_ms: record.duration_ms,
    ip: record.ip,
    user_id: record.user_id === null ? null : String(record.user_id),
    exception: record.exception?.class ?? null,
    error: isError(record) ? 1 : 0,
    query_count: record.queries.length,
    n_plus_one: record.n_plus_one.length,
  }
}

/** The filter as one predicate (the same rules for every command). */
export function compileFilter(filter: TraceFilter): (record: TraceRecord) => boolean {
  const tests: Array<(record: TraceRecord) => boolean> = []
  if (filter.path !== undefined && filter.path !== '') {
    const wanted = pathMatcher(filter.path)
    tests.push((record) => wanted(record.path))
  }
  if (filter.ignore !== undefined && filter.ignore.length > 0) {
    const ignored = filter.ignore.map(pathMatcher)
    tests.push((record) => !ignored.some((test) => test(record.path)))
  }
  if (filter.status !== undefined && filter.status !== '') {
    const ranges = statusRanges(filter.status)
    tests.push((record) => ranges.some(([low, high]) => record.status_code >= low && record.status_code <= high))
  }
  if (filter.method !== undefined && filter.method !== '') {
    // A comma-separated list, as --status takes: a GET route's traces are `GET,HEAD`.
    const methods = new Set(filter.method.split(',').map((method) => method.trim().toUpperCase()))
    tests.push((record) => methods.has(record.method))
  }
  if (filter.ip !== undefined && filter.ip !== '') {
    const ip = filter.ip
    tests.push((record) => record.ip === ip)
  }
  if (filter.error) tests.push(isError)
  if (filter.sinceMs !== undefined) {
    const since = filter.sinceMs
    tests.push((record) => Date.parse(record.timestamp) >= since)
  }
  if (filter.minDurationMs !== undefined) {
    const min = filter.minDurationMs
    tests.push((record) => record.duration_ms >= min)
  }
  if (filter.route !== undefined) {
    const route = filter.route
    tests.push((record) => record.route === route)
  }
  if (filter.event !== undefined) {
    // Case aside: `--event taskcreated` finding nothing beside TaskCreated's traces surprised; no two event classes differ only by case.
    const event = filter.event.toLowerCase()
    tests.push((record) => record.events.some((emitted) => emitted.name.toLowerCase() === event))
  }
  return (record) => tests.every((test) => test(record))
}

/** `401` => [401, 401]; `4xx` => [400, 499]; `401,5xx` => both. Throws on anything else. */
export function statusRanges(status: string): Array<[number, number]> {
  return status.split(',').map((part) => {
    const text = part.trim().toLowerCase()
    if (/^[1-5]xx$/.test(text)) {
      const base = Number(text[0]) * 100
      return [base, base + 99]
    }
    if (/^[1-5]\d\d$/.test(text)) return [Number(text), Number(text)]
    throw new RangeError(`status filter: expected a status like 401 or a class like 4xx, got "${part}"`)
  })
}
