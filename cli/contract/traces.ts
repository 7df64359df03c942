/**
 * The JSON contract of the trace commands: the document each one prints with
 * `--json`, as a TypeScript type, in one module that the CLI, the language
 * server and the VS Code extension import (types only). The JSON Schemas are
 * generated from these types into schemas.json (`npm run contract:schemas`).
 *
 * | Command                          | Document            |
 * |----------------------------------|---------------------|
 * | trace:list, log:trace (search) | TraceListJson       |
 * | trace:users                      | TraceUsersJson      |
 * | log:tail --json (NDJSON: one line per trace) | TraceSummaryJson |
 * | log:slow                         | SlowJson            |
 * | log:trace <id>                   | TraceJson           |
 * | log:replay, replay               | ReplayJson          |
 * | log:export --format=json         | ExportJson          |
 * | log:stats                        | StatsJson           |
 * | log:top                          | TopJson             |
 * | log:cleanup                      | CleanupJson         |
 * | api:why, debug:last, why         | WhyJson             |
 * | fix                              | FixJson             |
 * | test:regression                  | RegressionJson      |
 * | db:why                           | DbWhyJson           |
 * | log:export --format=postman      | PostmanCollectionJson |
 *
 * Compatibility rule: fields are only ever added; a field's type and meaning
 * never change. Absent values are `null`, never missing.
 */
import type { CapturedBody, NPlusOneFinding, TraceEvent, TraceException, TraceListener, TraceMiddleware, TraceQuery, TraceRecord, TraceResponse, TraceSourceLocation } from '../../framework/trace/record.ts'

// ---------------------------------------------------------------------------
// The trace record (what is stored, and what `log:trace <id> --json` prints):
// the framework's own types, declared once in framework/trace/record.ts.
// ---------------------------------------------------------------------------

export type TraceQueryJson = TraceQuery
export type MiddlewareTimingJson = TraceMiddleware
export type TraceEventJson = TraceEvent
export type TraceListenerJson = TraceListener
export type SourceLocationJson = TraceSourceLocation
export type TraceExceptionJson = TraceException
export type NPlusOneJson = NPlusOneFinding
export type CapturedBodyJson = CapturedBody
export type TraceResponseJson = TraceResponse
export type TraceRecordJson = TraceRecord

/** One line of a list. */
export interface TraceSummaryJson {
  trace_id: string
  method: string
  path: string
  /** The query string without `?` (redacted parameters are `[REDACTED]`), '' when none. */
  query: string
  route: string | null
  status_code: number
  duration_ms: number
  ip: string | null
  timestamp: string
  user_id: number | string | null
  /** The exception class, null when the request threw nothing. */
  exception: string | null
  /** The exception's message (`Post not found`), null when the request threw nothing. */
  error_message: string | null
  /** The field errors the error envelope answered with (a 422's `{ "title": ["The title field is required."] }`, the record's `exception.errors`), null when it had none. */
  errors: Record<string, string[]> | null
  query_count: number
  n_plus_one: boolean
  /** The trace this request replayed (`svc replay` marks what it sends, signed with the project's key), null for a request of its own, and for a marker that does not verify (any client can send the header). */
  replay_of: string | null
  /**
   * The trace id an `x-svc-replay-of` header claims when it does not verify
   * (forged, copied onto another request, signed under another checkout's key,
   * or by an svc before markers were bound to the request), null when the
   * header is absent or verifies. The trace is an ordinary request either way.
   */
  unverified_replay_of: string | null
}

// ---------------------------------------------------------------------------
// Documents
// ---------------------------------------------------------------------------

/** The filters as applied (echoed so a client can show them). */
export interface TraceFiltersJson {
  path: string | null
  status: string | null
  method: string | null
  ip: string | null
  error: boolean
  since: string | null
  days: number | null
  slow_ms: number | null
  limit: number
  /** `--ignore`: paths left out (substrings or globs). */
  ignore: string[]
  /** `--route`: only the traces this route pattern answered (trace:list, log:trace); null otherwise. */
  route: string | null
  /** `--event`: only the traces that emitted this event class (trace:list, log:trace); null otherwise. */
  event: string | null
}

export interface TraceListJson {
  filters: TraceFiltersJson
  traces: TraceSummaryJson[]
}

/** A user who made traced requests (`trace:users`): whom a replay can sign in as (`--as=<email>`). */
export interface TraceUserJson {
  user_id: number | string
  /** From the app's users table; null when the user is not there (or the app has none). */
  email: string | null
  name: string | null
  role: string | null
  /** Traces of this user among those scanned. */
  traces: number
  /** ISO 8601: their newest trace. */
  last_seen: string
}

export interface TraceUsersJson {
  /** How many of the newest traces were read. */
  scanned: number
  /** Most recently seen first. */
  users: TraceUserJson[]
}

export interface SlowJson {
  min_ms: number
  traces: TraceSummaryJson[]
}

export interface TraceJson {
  trace: TraceRecordJson
  /** True when the request ran a statement that changes data (insert, update, delete...): replaying it changes them again. */
  writes: boolean
  /** The trace as a list shows it (what an editor keeps of a pinned trace). */
  summary: TraceSummaryJson
}

export interface ExportJson {
  traces: TraceRecordJson[]
}

/** The request replay sends (or would send). */
export interface ReplayRequestJson {
  method: string
  url: string
  headers: Record<string, string>
  /** The body text sent, null for none. */
  body: string | null
}

export interface HeaderChangeJson {
  name: string
  recorded: string | null
  current: string | null
}

export interface BodyChangeJson {
  /** JSON pointer-like dotted path (`data.items.0.title`), '' for the whole body. */
  path: string
  recorded: unknown
  current: unknown
}

export interface ResponseDiffJson {
  /** True when status, compared headers or body differ (after the volatile-field rule). */
  changed: boolean
  status: { recorded: number; current: number } | null
  headers: HeaderChangeJson[]
  body: BodyChangeJson[]
}

export interface ReplayResponseJson {
  status: number
  headers: Record<string, string>
  body: unknown
  duration_ms: number
  /** The trace id the replayed request got. */
  trace_id: string | null
}

export interface ReplayJson {
  trace_id: string
  /** in-process (the app built from the current code) or the `--url` given. */
  target: string
  /** True when nothing was sent (production without `--force`, or `--format`). */
  dry_run: boolean
  request: ReplayRequestJson
  /** Credentials that were redacted in the trace and not replaced (`--as` replaces the bearer token). */
  redacted: string[]
  response: ReplayResponseJson | null
  diff: ResponseDiffJson | null
  /** `--format=curl|httpie`: the command line. */
  command: string | null
  /** `--test`: the vitest file written, relative to the project root (the folder of its package.json). */
  test_file: string | null
  /** `--test`: what would make the written test fail whatever the code does (redacted values it sends...); empty when nothing. */
  test_warnings: string[]
  /**
   * The user a fresh access token was signed for and sent: `--as`, or by default, when the trace's bearer token was
   * redacted, the user who made the request (not in production, not with `--anonymous`); null when none was.
   */
  signed_in_as: string | null
}

export interface StatusClassCountsJson {
  '1xx': number
  '2xx': number
  '3xx': number
  '4xx': number
  '5xx': number
}

/** The `route` of the entry that counts, per method, the requests that matched no route. */
export const NO_ROUTE = '(no route)'

export interface EndpointStatsJson {
  method: string
  /** The route pattern; `(no route)` (NO_ROUTE) for the requests of this method that matched no route, all in this one entry. */
  route: string
  count: number
  errors: number
  avg_ms: number
  p95_ms: number
  max_ms: number
  /** `(no route)`: its most frequent paths (at most 5), most frequent first; null for a route. */
  paths: EndpointPathJson[] | null
}

/** A path of the requests that matched no route, and how many there were. */
export interface EndpointPathJson {
  path: string
  count: number
}

export interface StatsJson {
  days: number
  total: number
  by_status: StatusClassCountsJson
  /** Share of 5xx responses and thrown exceptions, 0..1. */
  error_rate: number
  p50_ms: number
  p95_ms: number
  p99_ms: number
  slowest_routes: EndpointStatsJson[]
  /** Traces dropped because the writer's buffer was full (all processes that wrote to this store). */
  dropped: number
  /** N+1 findings in the period. */
  n_plus_one: number
  /** The width of each timeline bucket: from a minute to a day, so that the traces' span makes at most 60 of them. */
  bucket_ms: number
  /** Latency and errors over time, oldest first; buckets without traces are left out. */
  timeline: StatsBucketJson[]
}

export interface StatsBucketJson {
  /** ISO 8601: the bucket's start. */
  start: string
  count: number
  /** 5xx responses. */
  errors: number
  p50_ms: number
  p95_ms: number
}

export interface TopJson {
  days: number
  endpoints: EndpointStatsJson[]
}

export interface CleanupJson {
  days: number
  dry_run: boolean
  /** Traces deleted (or that would be). */
  deleted: number
  remaining: number
}

/** Why a route candidate did not take the request. */
export type RouteMissReason = 'prefix' | 'pattern' | 'constraint' | 'method'

export interface RouteCandidateJson {
  method: string
  path: string
  reason: RouteMissReason
  /** `{id}: "abc" does not match /\d+/`, `allows GET, HEAD`... */
  detail: string
}

/** `bad_request`: the router refused the path itself (malformed percent-encoding: 400). */
export type RoutingOutcome = 'matched' | 'method_not_allowed' | 'options' | 'fallback' | 'not_found' | 'bad_request'

export interface RoutingJson {
  outcome: RoutingOutcome
  matched: { method: string; path: string; params: Record<string, string>; middleware: string[]; handler: string; source: SourceLocationJson | null } | null
  /** Routes that came close (same leading path), in definition order, with why each does not match. */
  candidates: RouteCandidateJson[]
  /** For 405 and OPTIONS. */
  allowed: string[]
  /** Which fallback answers (`routes/api.ts`'s or `routes/web.ts`'s), for `fallback`. */
  fallback: 'api' | 'web' | null
  /** Why the router refused the request itself, for `bad_request`. */
  error: string | null
}

export type FailureKind =
  | 'invalid_credentials'
  | 'missing_token'
  | 'invalid_token'
  | 'expired_token'
  | 'token_version'
  | 'inactive'
  | 'role'
  | 'api_key'
  | 'throttle'
  | 'validation'
  | 'bad_request'
  | 'not_found'
  | 'method_not_allowed'
  | 'exception'
  | 'http_error'

export interface FailureJson {
  kind: FailureKind
  status: number
  message: string
  /** The middleware that answered (the innermost one that did not call next), null when the handler or router did, or when the trace cannot tell (the explanation then says so). */
  middleware: string | null
  /** One sentence: what happened and what to do. */
  explanation: string
  /** Field errors for `validation`. */
  errors: Record<string, string[]> | null
  /** Where the exception was thrown: the app's frame that threw (or called what threw); when svc threw in its own middleware pipeline (auth, validation of a declared body, throttle), the matched route's definition. */
  location: SourceLocationJson | null
}

export interface WhyJson {
  request: { method: string; path: string }
  routing: RoutingJson
  /** The trace analysed (`--id`, or the latest one for this request), null when none. */
  trace: TraceSummaryJson | null
  /** null when the trace succeeded or there is no trace. */
  failure: FailureJson | null
  /** With `--fix`/`--diff`/`--force`: the replay of the trace against the current code. */
  replay: ReplayJson | null
  /**
   * `why` (debug:last) explains the latest failed request that is not svc's
   * replay of one; this is the newest replay of it that failed too (as
   * recorded), null when none did, and always for api:why.
   */
  failed_replay: { trace_id: string; status_code: number; timestamp: string } | null
}

export interface FixJson {
  trace_id: string
  /** True when the replay now answers below 400. */
  fixed: boolean
  recorded_status: number
  current_status: number | null
  dry_run: boolean
  diff: ResponseDiffJson | null
  failure: FailureJson | null
}

export type RegressionStatus = 'same' | 'changed' | 'error' | 'skipped'

export interface RegressionResultJson {
  trace_id: string
  method: string
  path: string
  status: RegressionStatus
  /** Set for 'changed'. */
  diff: ResponseDiffJson | null
  /** Set for 'error' and 'skipped'. */
  reason: string | null
}

export interface RegressionJson {
  /** Traces replayed: same + changed + errors (the skipped ones are not in it; `results` lists every trace, skipped too). */
  total: number
  same: number
  changed: number
  errors: number
  /** Traces not replayed, each with its reason in `results` (a body the trace did not keep whole, redacted values, a request Node refused). */
  skipped: number
  results: RegressionResultJson[]
}

export type RowStatementKind = 'insert' | 'update' | 'delete' | 'select'

export interface RowStatementJson {
  trace_id: string
  timestamp: string
  method: string
  path: string
  kind: RowStatementKind
  sql: string
  args: unknown[] | Record<string, unknown> | null
  duration_ms: number
}

export interface DbWhyJson {
  table: string
  id: string
  /** Newest first. */
  statements: RowStatementJson[]
  /** How many traces that ran a statement on the table were read (newest first; at most `--limit`). */
  traces_searched: number
  /** True when the search stopped at `--limit`: older traces that ran a statement on the table were not read, so older statements on the row may be missing. */
  limit_reached: boolean
}

/** `log:export --format=postman`: a Postman v2.1 collection, one request per trace (items follow Postman's own schema). */
export interface PostmanCollectionJson {
  info: { name: string; schema: string }
  variable: Array<{ key: string; value: string }>
  item: Array<Record<string, unknown>>
}
