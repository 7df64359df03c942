/**
 * The JSON contract of the trace commands: the document each one prints with
 * `--json`, as a TypeScript type and as a JSON Schema (draft-07), in one
 * module that the CLI and the VS Code extension both import. It imports
 * nothing, so it can be bundled anywhere.
 *
 * | Command                          | Document            | Schema                     |
 * |----------------------------------|---------------------|----------------------------|
 * | trace:list, log:trace (search) | TraceListJson       | traceListSchema            |
 * | log:tail --json (NDJSON: one line per trace) | TraceSummaryJson | traceSummarySchema |
 * | log:slow                         | SlowJson            | slowSchema                 |
 * | log:trace <id>                   | TraceJson           | traceSchema                |
 * | log:replay, replay               | ReplayJson          | replaySchema               |
 * | log:export --format=json         | ExportJson          | exportSchema               |
 * | log:stats                        | StatsJson           | statsSchema                |
 * | log:top                          | TopJson             | topSchema                  |
 * | log:cleanup                      | CleanupJson         | cleanupSchema              |
 * | api:why, debug:last, why         | WhyJson             | whySchema                  |
 * | fix                              | FixJson             | fixSchema                  |
 * | test:regression                  | RegressionJson      | regressionSchema           |
 * | db:why                           | DbWhyJson           | dbWhySchema                |
 *
 * Compatibility rule: fields are only ever added; a field's type and meaning
 * never change. Absent values are `null`, never missing.
 */

// ---------------------------------------------------------------------------
// The trace record (what is stored, and what `log:trace <id> --json` prints)
// ---------------------------------------------------------------------------

export const REDACTED = '[REDACTED]'

/** One SQL statement the request ran through `c.db`. */
export interface TraceQueryJson {
  sql: string
  /** Positional (array) or named (object) parameters; values from redacted fields are `[REDACTED]`. */
  args: unknown[] | Record<string, unknown> | null
  duration_ms: number
  /** Rows returned (0 for writes without `returning`). */
  rows: number
  /** Milliseconds from the start of the request. */
  start_ms: number
  /** The rowid an insert created, when the driver reports one. */
  last_insert_rowid: number | null
  error: string | null
}

export interface MiddlewareTimingJson {
  name: string
  /** Milliseconds from the start of the request. */
  start_ms: number
  /** Including everything it awaited (`next()` among it). */
  duration_ms: number
}

export interface SourceLocationJson {
  file: string
  line: number
  column: number
}

export interface TraceExceptionJson {
  /** `HttpError`, `ValidationError`, `TypeError`... */
  class: string
  message: string
  /** The HTTP status it became. */
  status: number
  /** Field errors of a 422. */
  errors: Record<string, string[]> | null
  /** The first stack frame in application code, when known. */
  location: SourceLocationJson | null
}

/** Statements of one normalised shape run `count` times (>= the threshold) in one request. */
export interface NPlusOneJson {
  /** The SQL with literals and parameters replaced by `?`. */
  shape: string
  count: number
  total_ms: number
}

/** A body as recorded: parsed JSON (redacted) or text, cut at the trace body limit. */
export interface CapturedBodyJson {
  /** JSON value when the body was JSON, else the text; null when there was none. */
  content: unknown
  /** Bytes of the original body (as far as it was read). */
  size: number
  /** True when cut at the limit; `content` is then the text prefix. */
  truncated: boolean
}

export interface TraceResponseJson {
  status: number
  headers: Record<string, string>
  body: CapturedBodyJson
}

export interface TraceRecordJson {
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
  body: CapturedBodyJson
  queries: TraceQueryJson[]
  middleware: MiddlewareTimingJson[]
  exception: TraceExceptionJson | null
  /** The stack, one line per entry; only in debug mode, else null. */
  trace: string[] | null
  duration_ms: number
  /** Resident memory of the process at the end of the request (null where the runtime cannot tell). */
  memory_mb: number | null
  n_plus_one: NPlusOneJson[]
  ip: string | null
  /** ISO 8601, when the request began. */
  timestamp: string
  /** The authenticated user's id, null when none. */
  user_id: number | string | null
  response: TraceResponseJson
}

/** One line of a list. */
export interface TraceSummaryJson {
  trace_id: string
  method: string
  path: string
  route: string | null
  status_code: number
  duration_ms: number
  ip: string | null
  timestamp: string
  user_id: number | string | null
  /** The exception class, null when the request threw nothing. */
  exception: string | null
  query_count: number
  n_plus_one: boolean
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
}

export interface TraceListJson {
  filters: TraceFiltersJson
  traces: TraceSummaryJson[]
}

export interface SlowJson {
  min_ms: number
  traces: TraceSummaryJson[]
}

export interface TraceJson {
  trace: TraceRecordJson
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
  /** `--test`: the vitest file written. */
  test_file: string | null
}

export interface StatusClassCountsJson {
  '1xx': number
  '2xx': number
  '3xx': number
  '4xx': number
  '5xx': number
}

export interface EndpointStatsJson {
  method: string
  /** The route pattern, or the path when no route matched. */
  route: string
  count: number
  errors: number
  avg_ms: number
  p95_ms: number
  max_ms: number
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
  /** The middleware that answered (the innermost one that did not call next), null when the handler or router did. */
  middleware: string | null
  /** One sentence: what happened and what to do. */
  explanation: string
  /** Field errors for `validation`. */
  errors: Record<string, string[]> | null
  /** Where the exception was thrown (`exception`, `http_error`). */
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
  total: number
  same: number
  changed: number
  errors: number
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
}

// ---------------------------------------------------------------------------
// JSON Schemas (draft-07): the same shapes, checked by the tests with ajv.
// ---------------------------------------------------------------------------

export type JsonSchema = { [key: string]: unknown }

const str: JsonSchema = { type: 'string' }
const num: JsonSchema = { type: 'number' }
const int: JsonSchema = { type: 'integer' }
const bool: JsonSchema = { type: 'boolean' }
const any: JsonSchema = {}
const nullable = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: 'null' }] })
const arrayOf = (items: JsonSchema): JsonSchema => ({ type: 'array', items })
const record = (values: JsonSchema): JsonSchema => ({ type: 'object', additionalProperties: values })
const enumOf = (...values: string[]): JsonSchema => ({ type: 'string', enum: values })
/** Every listed property is required; others are allowed (fields are only ever added). */
const object = (properties: Record<string, JsonSchema>): JsonSchema => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
})

const argsSchema = nullable({ anyOf: [arrayOf(any), record(any)] })
const locationSchema = object({ file: str, line: int, column: int })
const bodySchema = object({ content: any, size: int, truncated: bool })

export const traceQuerySchema = object({
  sql: str,
  args: argsSchema,
  duration_ms: num,
  rows: int,
  start_ms: num,
  last_insert_rowid: nullable(int),
  error: nullable(str),
})

export const traceRecordSchema = object({
  trace_id: str,
  method: str,
  path: str,
  query: str,
  route: nullable(str),
  status_code: int,
  headers: record(str),
  body: bodySchema,
  queries: arrayOf(traceQuerySchema),
  middleware: arrayOf(object({ name: str, start_ms: num, duration_ms: num })),
  exception: nullable(
    object({ class: str, message: str, status: int, errors: nullable(record(arrayOf(str))), location: nullable(locationSchema) }),
  ),
  trace: nullable(arrayOf(str)),
  duration_ms: num,
  memory_mb: nullable(num),
  n_plus_one: arrayOf(object({ shape: str, count: int, total_ms: num })),
  ip: nullable(str),
  timestamp: str,
  user_id: nullable({ type: ['integer', 'string'] }),
  response: object({ status: int, headers: record(str), body: bodySchema }),
})

export const traceSummarySchema = object({
  trace_id: str,
  method: str,
  path: str,
  route: nullable(str),
  status_code: int,
  duration_ms: num,
  ip: nullable(str),
  timestamp: str,
  user_id: nullable({ type: ['integer', 'string'] }),
  exception: nullable(str),
  query_count: int,
  n_plus_one: bool,
})

const filtersSchema = object({
  path: nullable(str),
  status: nullable(str),
  method: nullable(str),
  ip: nullable(str),
  error: bool,
  since: nullable(str),
  days: nullable(num),
  slow_ms: nullable(num),
  limit: int,
})

export const traceListSchema = object({ filters: filtersSchema, traces: arrayOf(traceSummarySchema) })
export const slowSchema = object({ min_ms: num, traces: arrayOf(traceSummarySchema) })
export const traceSchema = object({ trace: traceRecordSchema })
export const exportSchema = object({ traces: arrayOf(traceRecordSchema) })

export const responseDiffSchema = object({
  changed: bool,
  status: nullable(object({ recorded: int, current: int })),
  headers: arrayOf(object({ name: str, recorded: nullable(str), current: nullable(str) })),
  body: arrayOf(object({ path: str, recorded: any, current: any })),
})

export const replaySchema = object({
  trace_id: str,
  target: str,
  dry_run: bool,
  request: object({ method: str, url: str, headers: record(str), body: nullable(str) }),
  redacted: arrayOf(str),
  response: nullable(object({ status: int, headers: record(str), body: any, duration_ms: num, trace_id: nullable(str) })),
  diff: nullable(responseDiffSchema),
  command: nullable(str),
  test_file: nullable(str),
})

const endpointSchema = object({ method: str, route: str, count: int, errors: int, avg_ms: num, p95_ms: num, max_ms: num })

export const statsSchema = object({
  days: num,
  total: int,
  by_status: object({ '1xx': int, '2xx': int, '3xx': int, '4xx': int, '5xx': int }),
  error_rate: num,
  p50_ms: num,
  p95_ms: num,
  p99_ms: num,
  slowest_routes: arrayOf(endpointSchema),
  dropped: int,
  n_plus_one: int,
})

export const topSchema = object({ days: num, endpoints: arrayOf(endpointSchema) })
export const cleanupSchema = object({ days: num, dry_run: bool, deleted: int, remaining: int })

const failureKinds = [
  'invalid_credentials',
  'missing_token',
  'invalid_token',
  'expired_token',
  'token_version',
  'inactive',
  'role',
  'api_key',
  'throttle',
  'validation',
  'bad_request',
  'not_found',
  'method_not_allowed',
  'exception',
  'http_error',
]

export const failureSchema = object({
  kind: enumOf(...failureKinds),
  status: int,
  message: str,
  middleware: nullable(str),
  explanation: str,
  errors: nullable(record(arrayOf(str))),
  location: nullable(locationSchema),
})

export const whySchema = object({
  request: object({ method: str, path: str }),
  routing: object({
    outcome: enumOf('matched', 'method_not_allowed', 'options', 'fallback', 'not_found', 'bad_request'),
    matched: nullable(
      object({ method: str, path: str, params: record(str), middleware: arrayOf(str), handler: str, source: nullable(locationSchema) }),
    ),
    candidates: arrayOf(object({ method: str, path: str, reason: enumOf('prefix', 'pattern', 'constraint', 'method'), detail: str })),
    allowed: arrayOf(str),
    fallback: nullable(enumOf('api', 'web')),
    error: nullable(str),
  }),
  trace: nullable(traceSummarySchema),
  failure: nullable(failureSchema),
  replay: nullable(replaySchema),
})

export const fixSchema = object({
  trace_id: str,
  fixed: bool,
  recorded_status: int,
  current_status: nullable(int),
  dry_run: bool,
  diff: nullable(responseDiffSchema),
  failure: nullable(failureSchema),
})

export const regressionSchema = object({
  total: int,
  same: int,
  changed: int,
  errors: int,
  skipped: int,
  results: arrayOf(
    object({
      trace_id: str,
      method: str,
      path: str,
      status: enumOf('same', 'changed', 'error', 'skipped'),
      diff: nullable(responseDiffSchema),
      reason: nullable(str),
    }),
  ),
})

export const dbWhySchema = object({
  table: str,
  id: str,
  statements: arrayOf(
    object({
      trace_id: str,
      timestamp: str,
      method: str,
      path: str,
      kind: enumOf('insert', 'update', 'delete', 'select'),
      sql: str,
      args: argsSchema,
      duration_ms: num,
    }),
  ),
})

/** Every schema by the command that prints it. */
export const traceSchemas = {
  'trace:list': traceListSchema,
  'log:trace': traceSchema,
  'log:trace:search': traceListSchema,
  'log:slow': slowSchema,
  'log:tail': traceSummarySchema,
  'log:replay': replaySchema,
  'log:export': exportSchema,
  'log:stats': statsSchema,
  'log:top': topSchema,
  'log:cleanup': cleanupSchema,
  'api:why': whySchema,
  'debug:last': whySchema,
  fix: fixSchema,
  'test:regression': regressionSchema,
  'db:why': dbWhySchema,
} as const satisfies Record<string, JsonSchema>
