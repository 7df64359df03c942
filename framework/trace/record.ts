/**
 * The trace record: what svc stores for every request. The CLI prints it
 * as is (`svc log:trace <id> --json`): these types are the one declaration of
 * its JSON, which `cli/contract/traces.ts` re-exports (`TraceRecordJson`) and
 * its JSON Schema is generated from (`npm run contract:schemas`).
 */

/** The text that replaces every redacted value. */
export const REDACTED = '[REDACTED]'

export type QueryArgs = unknown[] | Record<string, unknown> | null

/** One SQL statement the request ran through `c.db`. */
export interface TraceQuery {
  sql: string
  /** Positional (array) or named (object) parameters; values from redacted fields are `[REDACTED]`. */
  args: QueryArgs
  duration_ms: number
  /** Rows returned (0 for writes without `returning`). */
  rows: number
  /** Milliseconds from the start of the request. */
  start_ms: number
  /** The rowid an insert created, when the driver reports one. */
  last_insert_rowid: number | null
  error: string | null
  /** The line of application code that sent it (the first frame outside svc and node_modules); null when unknown. */
  source: TraceSourceLocation | null
}

export interface TraceMiddleware {
  name: string
  /** Milliseconds from the start of the request. */
  start_ms: number
  /** Including everything it awaited (`next()` among it). */
  duration_ms: number
  /**
   * Whether it called `next()`: the one that did not answered the request
   * itself (refused it, or served it). Absent in records written before svc
   * recorded it.
   */
  called_next?: boolean
}

/** One listener an event ran, or handed to the queue. */
export interface TraceListener {
  name: string
  /** True when it was handed to the queue (`queued: true` and a queue installed): a worker runs it later. */
  queued: boolean
  /** How long its `handle` ran; null for a queued one. */
  duration_ms: number | null
  /** The message of what it threw (for a queued one: why the queue refused it, or, under the sync driver, which ran it at once, what it failed for good with), null when it did not fail. */
  error: string | null
}

/** One event the request emitted (`emit(event, c)`). */
export interface TraceEvent {
  /** The event's class name (`TaskCreated`). */
  name: string
  /** Milliseconds from the start of the request. */
  start_ms: number
  /** Including its listeners and hand-offs to the queue. */
  duration_ms: number
  /** Those that ran, in order; after one that failed the rest did not run (a queued one the sync driver ran does not stop them). Empty when nothing listens to it. */
  listeners: TraceListener[]
}

export interface TraceSourceLocation {
  file: string
  line: number
  column: number
  /**
   * Set by the CLI where it shows a trace (`log:trace`), never stored: the
   * file was modified after the request, so `line` and `column` are as the
   * server recorded them (the column of the code jiti ran) and may no longer
   * point at the statement. Absent when the position is the file's as written.
   */
  stale?: boolean
}

export interface TraceException {
  /** `HttpError`, `ValidationError`, `TypeError`... */
  class: string
  message: string
  /** The HTTP status it became. */
  status: number
  /** Field errors of a 422. */
  errors: Record<string, string[]> | null
  /** The first stack frame in application code, when known. */
  location: TraceSourceLocation | null
}

/** Statements of one normalised shape run `count` times (>= the threshold) in one request. */
export interface NPlusOneFinding {
  /** The SQL with literals and parameters replaced by `?`. */
  shape: string
  count: number
  total_ms: number
  /** Where the first of them was sent from, null when unknown. */
  source: TraceSourceLocation | null
}

/** A body as recorded: parsed JSON (redacted) or text (redacted by pattern), cut at the trace body limit. */
export interface CapturedBody {
  /** JSON value when the body was JSON, else the text; null when there was none. */
  content: unknown
  /** Bytes of the original body (as far as it was read). */
  size: number
  /**
   * True when not all of the body is kept: cut at the limit (`content` is then
   * the text prefix), nested deeper than the trace keeps (`content` holds
   * `[TRUNCATED: nested too deep]` where it was cut), refused for its size
   * (413: `content` null), or incomplete.
   */
  truncated: boolean
  /** The body never completed: the response was sent, or the connection closed, before it all arrived. */
  incomplete: boolean
  /**
   * Present (true) when svc stopped counting the body at 64 MiB (the most it
   * reads and drops: `MAX_DISCARDED_BYTES`): `size` is what was read, and the
   * body was at least that. Absent otherwise.
   */
  capped?: boolean
}

export interface TraceResponse {
  status: number
  headers: Record<string, string>
  body: CapturedBody
}

export interface TraceRecord {
  /** `<prefix>_<32 hex>`, as sent in `X-Service-Trace-Id`. */
  trace_id: string
  method: string
  path: string
  /** The query string without `?` (redacted parameters are `[REDACTED]`), '' when none. */
  query: string
  /** The matched route pattern (`/api/v1/posts/{id}`), null for 404/405/OPTIONS. */
  route: string | null
  status_code: number
  /** Request headers, lower-cased names; sensitive values are `[REDACTED]`. */
  headers: Record<string, string>
  body: CapturedBody
  queries: TraceQuery[]
  middleware: TraceMiddleware[]
  exception: TraceException | null
  /** Events emitted within the request (`emit(event, c)`), in order, at most `MAX_TRACE_EVENTS`; [] in records written before svc recorded them. */
  events: TraceEvent[]
  /** Events emitted beyond `MAX_TRACE_EVENTS`, not kept (0 in records written before svc recorded events). */
  events_omitted: number
  /**
   * True when the server's HTTP parser refused the request before the app saw
   * it (bad framing, headers too large, too slow: `app.reject`): the method
   * and path are what could be read of its request line, not a request that
   * was sent. Absent in records written before svc recorded it.
   */
  refused_before_app?: boolean
  /** The stack, one line per entry; only in debug mode, else null. */
  trace: string[] | null
  duration_ms: number
  /**
   * Resident set size (RSS) of the whole process in MB, sampled at most once a
   * second when the record was built: a gauge of the process around the time
   * of the request, not the memory this request used (null where the runtime
   * cannot tell).
   */
  memory_mb: number | null
  n_plus_one: NPlusOneFinding[]
  ip: string | null
  /** ISO 8601, when the request began. */
  timestamp: string
  /** The authenticated user's id, null when none. */
  user_id: number | string | null
  response: TraceResponse
}

/** Events kept per request: a request that emits in a loop must not make its trace (and its batch) unbounded. */
export const MAX_TRACE_EVENTS = 100

export const emptyBody = (): CapturedBody => ({ content: null, size: 0, truncated: false, incomplete: false })

/** Where a JSON body nested deeper than the trace keeps was cut (the body is then `truncated`). */
export const TOO_DEEP = '[TRUNCATED: nested too deep]'
