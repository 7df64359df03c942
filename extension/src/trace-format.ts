/** How traces read in the Traces view and the status bar. No VS Code import. */
import type { TraceSummaryJson } from '../../cli/contract/traces.ts'

export type StatusTone = 'ok' | 'redirect' | 'client-error' | 'server-error'

export function statusTone(status: number): StatusTone {
  if (status >= 500) return 'server-error'
  if (status >= 400) return 'client-error'
  if (status >= 300) return 'redirect'
  return 'ok'
}

export function formatDuration(ms: number): string {
  if (ms < 1) return `${ms.toFixed(2)} ms`
  if (ms < 1000) return `${Math.round(ms)} ms`
  return `${(ms / 1000).toFixed(2)} s`
}

/** "12s ago", "5m ago", "3h ago", "2d ago". */
export function formatAge(timestamp: string, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(timestamp)) / 1000))
  if (seconds < 60) return `${seconds}s ago`
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ago`
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h ago`
  return `${Math.floor(seconds / 86_400)}d ago`
}

export function traceLabel(trace: TraceSummaryJson): string {
  return `${trace.status_code} ${trace.method} ${trace.path}`
}

export function traceDescription(trace: TraceSummaryJson, now = Date.now()): string {
  const parts = [formatDuration(trace.duration_ms), formatAge(trace.timestamp, now)]
  if (trace.exception) parts.push(trace.exception)
  if (trace.n_plus_one) parts.push('N+1')
  return parts.join(' · ')
}
