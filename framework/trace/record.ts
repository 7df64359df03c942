/**
 * The trace record: what svc stores for every request. The CLI prints it
 * as is (`svc log:trace <id> --json`); `cli/contract/traces.ts` declares the
 * same shape (`TraceRecordJson`) with its JSON Schema, and a test keeps the two equal.
 */

/** The text that replaces every redacted value. */
export const REDACTED = '[REDACTED]'

export type QueryArgs = unknown[] | Record<string, unknown> | null

export interface TraceQuery {
  sql: string
  args: QueryArgs
  duration_ms: number
  rows: number
  start_ms: number
  last_insert_rowid: number | null
  error: string | null
}

export interface TraceMiddleware {
  name: string
  start_ms: number
  duration_ms: number
}

export interface TraceSourceLocation {
  file: string
  line: number
  column: number
}

export interface TraceException {
  class: string
  message: string
  status: number
  errors: Record<string, string[]> | null
  location: TraceSourceLocation | null
}

export interface NPlusOneFinding {
  shape: string
  count: number
  total_ms: number
}

export interface CapturedBody {
  content: unknown
  size: number
  /** Not all of it is kept: cut at the limit (the content is then the text prefix), nested too deep, or incomplete. */
  truncated: boolean
  /** The body never completed: the response was sent, or the connection closed, before it all arrived. */
  incomplete: boolean
}

export interface TraceResponse {
  status: number
  headers: Record<string, string>
  body: CapturedBody
}

export interface TraceRecord {
  trace_id: string
  method: string
  path: string
  query: string
  route: string | null
  status_code: number
  headers: Record<string, string>
  body: CapturedBody
  queries: TraceQuery[]
  middleware: TraceMiddleware[]
  exception: TraceException | null
  trace: string[] | null
  duration_ms: number
  /** Resident set size (RSS) of the whole process, in MB, sampled at most once a second when the record was built: a gauge of the process, not what this request used. */
  memory_mb: number | null
  n_plus_one: NPlusOneFinding[]
  ip: string | null
  timestamp: string
  user_id: number | string | null
  response: TraceResponse
}

export const emptyBody = (): CapturedBody => ({ content: null, size: 0, truncated: false, incomplete: false })

/** Where a JSON body nested deeper than the trace keeps was cut (the body is then `truncated`). */
export const TOO_DEEP = '[TRUNCATED: nested too deep]'
