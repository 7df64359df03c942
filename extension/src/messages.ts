/**
 * The messages between the webview pages (trace detail, request, dashboard)
 * and the extension, tagged by `type`. Types only, plus the checks the
 * extension runs on every incoming message before acting on it; imported by
 * both sides.
 */
import type { RouteJson } from '../../cli/contract/routes.ts'
import type { ReplayJson, StatsJson, TopJson, TraceRecordJson, WhyJson } from '../../cli/contract/traces.ts'

// ---------------------------------------------------------------------------
// Trace detail
// ---------------------------------------------------------------------------

/** What the trace detail's buttons ask for. */
export const TRACE_ACTIONS = ['replay', 'replayDiff', 'replayAs', 'replayOnServer', 'copyCurl', 'createTest', 'why', 'editAndSend', 'compare', 'pin'] as const
export type TraceAction = (typeof TRACE_ACTIONS)[number]

/** Webview → extension. */
export type TraceWebviewMessage =
  | { type: 'ready' }
  | { type: 'action'; action: TraceAction; traceId: string }
  | { type: 'openSource'; file: string; line: number; column: number }
  | { type: 'openHandler'; method: string; route: string }
  | { type: 'openTrace'; traceId: string }

/** The environment requests go to (svc.environments), as the page shows it. */
export interface EnvironmentView {
  name: string
  baseUrl: string
  production: boolean
}

/** Extension → webview. */
export type TracePanelMessage =
  | {
      type: 'trace'
      trace: TraceRecordJson
      /** `log:trace --json`'s `writes`: replaying it changes data again. */
      writes: boolean
      /** The matched route as `route:list` has it (its handler, and its source with an absolute file), null when none matched or the table is not loaded. */
      route: Pick<RouteJson, 'method' | 'path' | 'handler' | 'source'> | null
      /** The project root, to show source paths relative to it. */
      root: string | null
      pinned: boolean
      environment: EnvironmentView
    }
  | { type: 'busy'; action: TraceAction }
  | { type: 'replayResult'; replay: ReplayJson }
  | { type: 'why'; why: WhyJson }
  | { type: 'pinned'; pinned: boolean }
  | { type: 'notice'; message: string }
  | { type: 'error'; message: string }

// ---------------------------------------------------------------------------
// Request (edit and send, response, history)
// ---------------------------------------------------------------------------

/** A request as the request page edits it (the CLI's `replay --edit` shape, headers as pairs). */
export interface EditableRequest {
  method: string
  url: string
  headers: Array<[string, string]>
  /** The body text ('' for none). */
  body: string
}

export interface SentResponse {
  status: number
  statusText: string
  duration_ms: number
  headers: Array<[string, string]>
  body: string
  /** X-Service-Trace-Id of the answer: a link to its trace. */
  traceId: string | null
}

export interface HistoryEntry {
  /** Epoch ms. */
  at: number
  environment: string
  request: EditableRequest
  status: number | null
  traceId: string | null
}

export type RequestWebviewMessage =
  | { type: 'ready' }
  | { type: 'send'; request: EditableRequest; environment: string }
  | { type: 'pickAuth' }
  | { type: 'openTrace'; traceId: string }

export type RequestPanelMessage =
  | { type: 'init'; request: EditableRequest; environments: EnvironmentView[]; environment: string; history: HistoryEntry[]; title: string }
  | { type: 'busy' }
  | { type: 'response'; response: SentResponse; history: HistoryEntry[] }
  | { type: 'authorization'; value: string | null }
  | { type: 'error'; message: string }

// ---------------------------------------------------------------------------
// Dashboard
// ---------------------------------------------------------------------------

export type DashboardWebviewMessage = { type: 'ready' } | { type: 'refresh'; days: number } | { type: 'openRoute'; method: string; route: string }

export type DashboardPanelMessage = { type: 'data'; stats: StatsJson; top: TopJson } | { type: 'busy' } | { type: 'error'; message: string }

// ---------------------------------------------------------------------------
// Checks: every message from a page is checked before it is acted on
// ---------------------------------------------------------------------------

type Fields = Record<string, unknown>

const isObject = (value: unknown): value is Fields => typeof value === 'object' && value !== null
const isString = (value: unknown): value is string => typeof value === 'string'

export function isTraceWebviewMessage(value: unknown): value is TraceWebviewMessage {
  if (!isObject(value)) return false
  switch (value.type) {
    case 'ready':
      return true
    case 'action':
      return (TRACE_ACTIONS as readonly unknown[]).includes(value.action) && isString(value.traceId)
    case 'openSource':
      return isString(value.file) && typeof value.line === 'number' && typeof value.column === 'number'
    case 'openHandler':
      return isString(value.method) && isString(value.route)
    case 'openTrace':
      return isString(value.traceId)
    default:
      return false
  }
}

export function isEditableRequest(value: unknown): value is EditableRequest {
  return (
    isObject(value) &&
    isString(value.method) &&
    isString(value.url) &&
    isString(value.body) &&
    Array.isArray(value.headers) &&
    value.headers.every((pair) => Array.isArray(pair) && pair.length === 2 && isString(pair[0]) && isString(pair[1]))
  )
}

export function isRequestWebviewMessage(value: unknown): value is RequestWebviewMessage {
  if (!isObject(value)) return false
  switch (value.type) {
    case 'ready':
    case 'pickAuth':
      return true
    case 'send':
      return isEditableRequest(value.request) && isString(value.environment)
    case 'openTrace':
      return isString(value.traceId)
    default:
      return false
  }
}

export function isDashboardWebviewMessage(value: unknown): value is DashboardWebviewMessage {
  if (!isObject(value)) return false
  switch (value.type) {
    case 'ready':
      return true
    case 'refresh':
      return typeof value.days === 'number' && value.days > 0
    case 'openRoute':
      return isString(value.method) && isString(value.route)
    default:
      return false
  }
}
