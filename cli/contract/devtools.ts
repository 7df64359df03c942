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

/** One counter of the database throttle store (the `rate_limits` table). */
export interface RateCounterJson {
  key: string
  /** Hits in the current window, refused ones included. */
  hits: number
  /** When the window ends (ISO 8601). */
  reset_at: string
  /** Seconds until then. */
  resets_in: number
  /** Parsed from a route throttle's key (`throttle:<max>,<minutes>:<METHOD> <route>:<client>`); null for other counters (the login lockout). */
  throttle: {
    max_attempts: number
    decay_minutes: number
    /** `GET /api/v1/posts`, or the throttle's name. */
    scope: string
    /** `user:<id>`, `ip:<address>`, or what a custom key function returned. */
    client: string
    /** At the limit: the next request in this window gets 429. */
    blocked: boolean
  } | null
}

/** `svc rate:status --json` (and with `--clear`). */
export interface RateStatusJson {
  /** THROTTLE_STORE. */
  store: 'memory' | 'database'
  /** The counters that are still counting (expired windows are left out). */
  counters: RateCounterJson[]
  /** With --clear: how many counters were deleted; null otherwise. */
  cleared: number | null
  /** Why some counters cannot be seen from here (THROTTLE_STORE=memory), else null. */
  note: string | null
}

/** `svc storage:link --json`. */
export interface StorageLinkJson {
  /** The link: `<app>/public/storage`. */
  link: string
  /** What it points at: `<storage>/app/public`. */
  target: string
  /** `created`, `exists` (already right), `replaced` (--force). */
  status: 'created' | 'exists' | 'replaced'
  /** The URL prefix the files are served under. */
  url_prefix: string
}

/** One GET route measured by `svc benchmark`. */
export interface BenchmarkRouteJson {
  method: string
  /** The route as declared (`/api/v1/posts/{id}`). */
  path: string
  /** What was requested (`/api/v1/posts/1`): sample values for parameters, optional ones left out. */
  url: string
  /** How many answers had each status. */
  statuses: Record<string, number>
  min_ms: number
  p50_ms: number
  p95_ms: number
  max_ms: number
  mean_ms: number
  /** One request after the other, in this process: 1000 / mean_ms. */
  requests_per_second: number
}

/** `svc benchmark --json`: every GET route timed through app.fetch, in process. */
export interface BenchmarkJson {
  /** Measured requests per route (after `warmup` unmeasured ones). */
  iterations: number
  warmup: number
  /** `--as`: whose signed token was sent; null without one. */
  as: string | null
  routes: BenchmarkRouteJson[]
  /** Routes not measured, and why (a required parameter no sample value satisfies). */
  skipped: Array<{ method: string; path: string; reason: string }>
}
