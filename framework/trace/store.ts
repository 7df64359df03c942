/**
 * The trace store: one table in a libSQL database (its own file,
 * `storage/traces.sqlite`, by default). The columns the tools filter on are
 * columns; the whole record is one JSON text column, serialised in the writer.
 */
import type { Database } from '../database/database.ts'
import type { TraceRecord } from './record.ts'

export interface TraceSink {
  /** Writes the records in one transaction; `dropped` adds to the stored drop counter. */
  write(records: readonly TraceRecord[], dropped: number): Promise<void>
  /** Deletes what is older than `olderThanMs` (epoch ms) and beyond the newest `maxTraces`; returns how many. */
  prune(options: { olderThanMs?: number; maxTraces?: number }): Promise<number>
}

export interface TraceFilter {
  /** Substring, or a glob when it has `*` or `?`. */
  path?: string
  /** `401`, `4xx`, or a comma-separated mix. */
  status?: string
  method?: string
  ip?: string
  /** 5xx responses and exceptions that are not HTTP errors. */
  error?: boolean
  /** Epoch ms: traces that began at or after. */
  sinceMs?: number
  /** Traces at least this long. */
  minDurationMs?: number
  /** The matched route pattern, exactly. */
  route?: string
  /** Only traces newer than this trace id's (for tail). */
  afterTraceId?: string
  limit?: number
  /** Default newest first. */
  order?: 'newest' | 'oldest' | 'slowest'
}

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

const COLUMNS = [
  'trace_id',
  'started_at',
  'method',
  'path',
  'route',
  'status_code',
  'duration_ms',
  'ip',
  'user_id',
  'exception',
  'error',
  'query_count',
  'n_plus_one',
  'record',
] as const
const SUMMARY_COLUMNS = COLUMNS.filter((column) => column !== 'record').join(', ')
// SQLite allows 32766 parameters per statement; 14 columns * 500 rows stays far below.
const ROWS_PER_INSERT = 500

export const TRACE_SCHEMA = [
  `create table if not exists svc_traces (
    trace_id text primary key,
    started_at integer not null,
    method text not null,
    path text not null,
    route text,
    status_code integer not null,
    duration_ms real not null,
    ip text,
    user_id text,
    exception text,
    error integer not null default 0,
    query_count integer not null default 0,
    n_plus_one integer not null default 0,
    record text not null
  )`,
  'create index if not exists svc_traces_started_at on svc_traces (started_at)',
  'create index if not exists svc_traces_status on svc_traces (status_code, started_at)',
  'create table if not exists svc_trace_counters (name text primary key, value integer not null)',
]

export class TraceStore implements TraceSink {
  private ready: Promise<void> | undefined

  constructor(readonly db: Database) {}

  /** Creates the tables once (idempotent). */
  init(): Promise<void> {
    this.ready ??= this.db.batch(TRACE_SCHEMA).then(() => undefined)
    return this.ready
  }

  async write(records: readonly TraceRecord[], dropped = 0): Promise<void> {
    await this.init()
    const statements: Array<{ sql: string; args: unknown[] }> = []
    for (let start = 0; start < records.length; start += ROWS_PER_INSERT) {
      const chunk = records.slice(start, start + ROWS_PER_INSERT)
      const args: unknown[] = []
      for (const record of chunk) {
        args.push(
          record.trace_id,
          Date.parse(record.timestamp),
          record.method,
          record.path,
          record.route,
          record.status_code,
          record.duration_ms,
          record.ip,
          record.user_id === null ? null : String(record.user_id),
          record.exception?.class ?? null,
          isError(record) ? 1 : 0,
          record.queries.length,
          record.n_plus_one.length,
          JSON.stringify(record),
        )
      }
      const row = `(${COLUMNS.map(() => '?').join(', ')})`
      statements.push({
        sql: `insert or ignore into svc_traces (${COLUMNS.join(', ')}) values ${chunk.map(() => row).join(', ')}`,
        args,
      })
    }
    if (dropped > 0) {
      statements.push({
        sql: "insert into svc_trace_counters (name, value) values ('dropped', ?) on conflict (name) do update set value = value + excluded.value",
        args: [dropped],
      })
    }
    if (statements.length > 0) await this.db.batch(statements as never)
  }

  async prune(options: { olderThanMs?: number; maxTraces?: number }): Promise<number> {
    await this.init()
    let deleted = 0
    if (options.olderThanMs !== undefined) {
      const result = await this.db.execute('delete from svc_traces where started_at < ?', [options.olderThanMs])
      deleted += result.rowsAffected
    }
    if (options.maxTraces !== undefined && options.maxTraces > 0) {
      const result = await this.db.execute(
        'delete from svc_traces where rowid < (select rowid from svc_traces order by rowid desc limit 1 offset ?)',
        [options.maxTraces - 1],
      )
      deleted += result.rowsAffected
    }
    return deleted
  }

  async count(filter: TraceFilter = {}): Promise<number> {
    await this.init()
    const { where, args } = whereClause(filter)
    const result = await this.db.execute(`select count(*) as n from svc_traces ${where}`, args as never)
    return Number(result.rows[0]!.n)
  }

  async search(filter: TraceFilter = {}): Promise<TraceRow[]> {
    await this.init()
    const { where, args } = whereClause(filter)
    const order = filter.order === 'oldest' ? 'started_at asc, rowid asc' : filter.order === 'slowest' ? 'duration_ms desc' : 'started_at desc, rowid desc'
    const limit = filter.limit === undefined ? '' : ` limit ${Math.max(0, Math.floor(filter.limit))}`
    const result = await this.db.execute(`select ${SUMMARY_COLUMNS} from svc_traces ${where} order by ${order}${limit}`, args as never)
    return result.rows as unknown as TraceRow[]
  }

  /** Full records matching the filter (newest first). */
  async records(filter: TraceFilter = {}): Promise<TraceRecord[]> {
    await this.init()
    const { where, args } = whereClause(filter)
    const order = filter.order === 'oldest' ? 'started_at asc, rowid asc' : 'started_at desc, rowid desc'
    const limit = filter.limit === undefined ? '' : ` limit ${Math.max(0, Math.floor(filter.limit))}`
    const result = await this.db.execute(`select record from svc_traces ${where} order by ${order}${limit}`, args as never)
    return result.rows.map((row) => JSON.parse(String(row.record)) as TraceRecord)
  }

  async get(traceId: string): Promise<TraceRecord | undefined> {
    await this.init()
    const result = await this.db.execute('select record from svc_traces where trace_id = ?', [traceId])
    const row = result.rows[0]
    return row === undefined ? undefined : (JSON.parse(String(row.record)) as TraceRecord)
  }

  /** Trace ids starting with `prefix` (so a shortened id can be used), at most `limit`. */
  async idsStartingWith(prefix: string, limit = 2): Promise<string[]> {
    await this.init()
    const result = await this.db.execute("select trace_id from svc_traces where trace_id >= ? and trace_id < ? || '\uffff' limit ?", [
      prefix,
      prefix,
      limit,
    ])
    return result.rows.map((row) => String(row.trace_id))
  }

  async droppedCount(): Promise<number> {
    await this.init()
    const result = await this.db.execute("select value from svc_trace_counters where name = 'dropped'")
    return Number(result.rows[0]?.value ?? 0)
  }

  /** Records whose JSON mentions `text` (a cheap pre-filter for db:why), newest first. */
  async recordsMentioning(text: string, limit: number): Promise<TraceRecord[]> {
    await this.init()
    const result = await this.db.execute(
      'select record from svc_traces where instr(lower(record), lower(?)) > 0 order by started_at desc, rowid desc limit ?',
      [text, limit],
    )
    return result.rows.map((row) => JSON.parse(String(row.record)) as TraceRecord)
  }

  close(): void {
    this.db.close()
  }
}

export function isError(record: Pick<TraceRecord, 'status_code' | 'exception'>): boolean {
  return record.status_code >= 500 || (record.exception !== null && record.exception.status >= 500)
}

function whereClause(filter: TraceFilter): { where: string; args: unknown[] } {
  const clauses: string[] = []
  const args: unknown[] = []
  if (filter.path !== undefined && filter.path !== '') {
    if (/[*?[]/.test(filter.path)) {
      clauses.push('path glob ?')
      args.push(filter.path)
    } else {
      clauses.push('instr(path, ?) > 0')
      args.push(filter.path)
    }
  }
  if (filter.status !== undefined && filter.status !== '') {
    const parts = statusRanges(filter.status)
    clauses.push(`(${parts.map(() => 'status_code between ? and ?').join(' or ')})`)
    for (const [low, high] of parts) args.push(low, high)
  }
  if (filter.method !== undefined && filter.method !== '') {
    clauses.push('method = ?')
    args.push(filter.method.toUpperCase())
  }
  if (filter.ip !== undefined && filter.ip !== '') {
    clauses.push('ip = ?')
    args.push(filter.ip)
  }
  if (filter.error) clauses.push('error = 1')
  if (filter.sinceMs !== undefined) {
    clauses.push('started_at >= ?')
    args.push(filter.sinceMs)
  }
  if (filter.minDurationMs !== undefined) {
    clauses.push('duration_ms >= ?')
    args.push(filter.minDurationMs)
  }
  if (filter.route !== undefined) {
    clauses.push('route = ?')
    args.push(filter.route)
  }
  if (filter.afterTraceId !== undefined) {
    clauses.push('rowid > (select rowid from svc_traces where trace_id = ?)')
    args.push(filter.afterTraceId)
  }
  return { where: clauses.length === 0 ? '' : `where ${clauses.join(' and ')}`, args }
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
