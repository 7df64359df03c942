/** How traces read in the Traces view, the quick picks and the status bar. No VS Code import. */
import type { TraceSummaryJson } from '../../cli/contract/traces.ts'
import { formatTime } from './time-format.ts'

export type StatusTone = 'ok' | 'redirect' | 'client-error' | 'server-error'

export function statusTone(status: number): StatusTone {
  if (status >= 500) return 'server-error'
  if (status >= 400) return 'client-error'
  if (status >= 300) return 'redirect'
  return 'ok'
}

/**
 * The theme colour of a status (contributed in package.json, with defaults for
 * light, dark and both high-contrast themes that read as green, blue, amber
 * and red with at least 4.5:1 against the editor and side bar backgrounds).
 */
export function statusColorId(status: number, icon = false): string {
  switch (statusTone(status)) {
    case 'server-error':
      return 'svc.statusServerError'
    case 'client-error':
      // Amber dark enough for text on white reads as olive in a dot: the dot has a brighter one (3:1, enough for an icon).
      return icon ? 'svc.statusClientErrorIcon' : 'svc.statusClientError'
    case 'redirect':
      return 'svc.statusRedirect'
    default:
      return 'svc.statusSuccess'
  }
}

export function formatDuration(ms: number): string {
  if (ms < 1) return `${ms.toFixed(2)} ms`
  if (ms < 1000) return `${Math.round(ms)} ms`
  return `${(ms / 1000).toFixed(2)} s`
}

/** The path with its query string, as it was requested. */
export function requestTarget(trace: Pick<TraceSummaryJson, 'path' | 'query'>): string {
  return trace.query ? `${trace.path}?${trace.query}` : trace.path
}

export function traceLabel(trace: TraceSummaryJson): string {
  return `${trace.status_code} ${trace.method} ${requestTarget(trace)}`
}

/**
 * The first field error of the envelope, `title: The title field is required.`, null when it had none. A 422's
 * message is always "The given data was invalid.": the field says what was. A pinned line saved by an older svc
 * has no `errors`.
 */
export function firstFieldError(trace: Pick<TraceSummaryJson, 'errors'>): string | null {
  for (const [field, messages] of Object.entries(trace.errors ?? {})) {
    const message = Array.isArray(messages) ? messages.find((text) => typeof text === 'string' && text !== '') : undefined
    if (message !== undefined) return `${field}: ${message}`
  }
  return null
}

/** "12 ms · 14:05:09 · Post not found" (a 422: its first field error), with "replay" and "N+1" when they apply. */
export function traceDescription(trace: TraceSummaryJson, now = Date.now()): string {
  const parts = [formatDuration(trace.duration_ms), formatTime(trace.timestamp, now)]
  if (trace.replay_of !== null) parts.unshift('replay')
  const fieldError = firstFieldError(trace)
  if (fieldError !== null) parts.push(fieldError)
  else if (trace.error_message) parts.push(trace.error_message)
  else if (trace.exception) parts.push(trace.exception)
  if (trace.n_plus_one) parts.push('N+1')
  return parts.join(' · ')
}

/**
 * A trace in a quick pick (Open Trace…, Compare Traces…, the trace commands run from the palette): the row's label
 * and description, and its id. Rows of one route read alike; the time and the error tell them apart (the id alone
 * did, which nobody remembers).
 */
export function tracePickItem(trace: TraceSummaryJson, now = Date.now()): { label: string; description: string; id: string } {
  return { label: traceLabel(trace), description: `${traceDescription(trace, now)} · ${trace.trace_id}`, id: trace.trace_id }
}

/**
 * Type-to-filter over the listed traces: every word must be found in the
 * line (status, method, path with its query, route, error, the first field
 * error as the row shows it, trace id); a
 * word like `4xx` matches the status class. Only narrows what the CLI listed.
 */
export function matchesText(trace: TraceSummaryJson, text: string): boolean {
  const words = text.toLowerCase().split(/\s+/).filter(Boolean)
  if (words.length === 0) return true
  const line = [trace.status_code, trace.method, requestTarget(trace), trace.route ?? '', trace.exception ?? '', trace.error_message ?? '', firstFieldError(trace) ?? '', trace.trace_id, trace.replay_of !== null ? 'replay' : '']
    .join(' ')
    .toLowerCase()
  return words.every((word) => (/^[1-5]xx$/.test(word) ? String(trace.status_code)[0] === word[0] : line.includes(word)))
}

/**
 * A request of a route's method: its own, any for `ANY`, and HEAD for a GET
 * route, which the router answers with it (the CodeLens counts them too).
 */
export function routeAnswers(routeMethod: string | undefined, method: string): boolean {
  return routeMethod === undefined || routeMethod === 'ANY' || routeMethod === method || (routeMethod === 'GET' && method === 'HEAD')
}

/** The route a trace groups under: its matched pattern, or "no route" (404s and the like). */
export function routeKey(trace: Pick<TraceSummaryJson, 'method' | 'route'>): string {
  return trace.route === null ? 'no route matched' : `${trace.method} ${trace.route}`
}
