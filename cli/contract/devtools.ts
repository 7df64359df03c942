/**
 * The JSON contract of the developer tools: the document each prints with
 * `--json`, as a TypeScript type (schemas.json is generated from these).
 * Types only. Compatibility rule: fields are only ever added.
 *
 * | Command                        | Document         |
 * |--------------------------------|------------------|
 * | api:test (t)                   | ApiTestJson      |
 * | api:test --loop=N              | ApiTestLoopJson  |
 * | rate:status (--clear)          | RateStatusJson   |
 * | storage:link                   | StorageLinkJson  |
 * | benchmark                      | BenchmarkJson    |
 */

/** The request `svc t` sent. */
export interface ApiTestRequestJson {
  method: string
  url: string
  /** `--as`: whose token was attached; null without one. */
  as: string | null
}

/** `svc t METHOD path ... --json`: one exchange. */
export interface ApiTestJson {
  request: ApiTestRequestJson
  status: number
  status_text: string
  /** From sending to the last byte of the body, in milliseconds. */
  duration_ms: number
  /** The X-Service-Trace-Id header: `svc log:trace <id>` shows the request. */
  trace_id: string | null
  headers: Record<string, string>
  /** The parsed JSON body, else its text; null when empty. */
  body: unknown
}

/** `svc t ... --loop=N --json`: the same request N times, one after another. */
export interface ApiTestLoopJson {
  request: ApiTestRequestJson
  loop: {
    count: number
    min_ms: number
    median_ms: number
    p95_ms: number
    max_ms: number
    mean_ms: number
    /** How many answers had each status (`"200": 48, "429": 2`). */
    statuses: Record<string, number>
  }
  /** The last answer's status and trace id. */
  last: { status: number; trace_id: string | null }
}
