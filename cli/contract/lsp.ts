/**
 * The language server's custom requests and notifications: their names and
 * parameters. The results are the CLI's `--json` documents (see routes.ts and
 * traces.ts), produced by running the CLI itself, never a second
 * implementation. Imports types only, so the extension bundles it.
 */
import type { AuthTokenJson, RouteListJson, ServerStatusJson } from './routes.ts'
import type { ReplayJson, StatsJson, TopJson, TraceJson, TraceListJson, TraceUsersJson, WhyJson } from './traces.ts'

/** Filters of `svc trace:list`, as its flags (absent = not filtered). */
export interface TraceListParams {
  status?: string
  method?: string
  path?: string
  ip?: string
  since?: string
  /** Milliseconds, or true for the configured threshold. */
  slow?: number | true
  /** Exceptions only (`log:trace --error`). */
  error?: boolean
  limit?: number
  /** `--ignore`: paths to leave out (substrings or globs: `/health/*`). */
  ignore?: string[]
  /** `--route`: only the traces this route pattern answered (`/api/v1/posts/{id}`). */
  route?: string
}

export interface TraceParams {
  id: string
}

export interface ReplayParams {
  id: string
  /** `--diff`: compare with the recorded response. */
  diff?: boolean
  /** `--force`: execute even in production (otherwise a dry run there). */
  force?: boolean
  /** `--format=curl|httpie`: only print the command. */
  format?: 'curl' | 'httpie'
  /** `--test`: write a vitest regression test. */
  test?: boolean
  /** `--as=<email>`: a fresh access token for this user. */
  as?: string
  /** `--header`: `Name: value` pairs (a saved token: `Authorization: Bearer …`). */
  header?: string[]
  /** `--url`: send to this server (an environment's base URL) instead of the app in process. */
  url?: string
  /** `--send-redacted`: send `[REDACTED]` where the trace redacted a body field (otherwise E_REPLAY_REDACTED). */
  sendRedacted?: boolean
  /** `--anonymous`: send without a token, not as the user who made the request (the CLI's default when its token was redacted). */
  anonymous?: boolean
}

/** `api:why <method> <path> --id <id>`: why a traced request failed. */
export interface WhyParams {
  id: string
  method: string
  path: string
}

export interface StatsParams {
  /** `--days` (default 7). */
  days?: number
}

export interface TopParams {
  days?: number
  limit?: number
}

/** Request name → [params, result]. */
export interface SvcRequests {
  'svc/status': [Record<string, never>, ServerStatusJson]
  'svc/routes': [Record<string, never>, RouteListJson]
  'svc/traces': [TraceListParams, TraceListJson]
  'svc/trace': [TraceParams, TraceJson]
  'svc/replay': [ReplayParams, ReplayJson]
  /** Reads the route files again and rebuilds the route table, diagnostics and CodeLens ("Refresh Routes"). */
  'svc/refreshRoutes': [Record<string, never>, RouteListJson]
  'svc/traceUsers': [Record<string, never>, TraceUsersJson]
  'svc/why': [WhyParams, WhyJson]
  'svc/stats': [StatsParams, StatsJson]
  'svc/top': [TopParams, TopJson]
  /** `auth:token <email>`: a fresh token for the request page's Authorization header. */
  'svc/authToken': [{ email: string }, AuthTokenJson]
}

export const SvcRequest = {
  status: 'svc/status',
  routes: 'svc/routes',
  traces: 'svc/traces',
  trace: 'svc/trace',
  replay: 'svc/replay',
  refreshRoutes: 'svc/refreshRoutes',
  traceUsers: 'svc/traceUsers',
  why: 'svc/why',
  stats: 'svc/stats',
  top: 'svc/top',
  authToken: 'svc/authToken',
} as const satisfies Record<string, keyof SvcRequests>

/** Notifications. Server → client: something changed; the client re-requests what it shows. */
export const SvcNotification = {
  /** Route files changed (params: `{}`): routes, CodeLens and diagnostics were refreshed. */
  routesChanged: 'svc/routesChanged',
  /** New traces were written, or old ones pruned (params: `{}`): the server read the store's last batch and count, not file events. */
  tracesChanged: 'svc/tracesChanged',
  /** The server's status (`svc/status`) changed: its route table or recent traces were read (params: `{}`). */
  statusChanged: 'svc/statusChanged',
  /** Client → server: a route file became visible in an editor (params: `{ uri }`); the server refreshes the CodeLens. */
  editorShown: 'svc/editorShown',
} as const

/** The `data` of a custom request's ResponseError: the CLI's error. */
export interface SvcErrorData {
  code: string
  message: string
  hint: string | null
}
