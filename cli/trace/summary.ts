/** Records as the contract's documents, and the human one-line view. */
import type { TraceRecord } from '../../framework/trace/index.ts'
import type { TraceSummaryJson } from '../contract/traces.ts'
import type { Colors } from '../output/print.ts'
import { replayMarking, type ReplayKey } from './replay-marker.ts'

/** `replayKey` (readReplayKey) verifies the replay marker: a trace is a replay only when svc sent it as one. */
export function summaryOfRecord(record: TraceRecord, replayKey: ReplayKey): TraceSummaryJson {
  return {
    trace_id: record.trace_id,
    method: record.method,
    path: record.path,
    query: record.query,
    route: record.route,
    status_code: record.status_code,
    duration_ms: record.duration_ms,
    ip: record.ip,
    timestamp: record.timestamp,
    user_id: record.user_id,
    exception: record.exception?.class ?? null,
    error_message: record.exception?.message ?? null,
    errors: record.exception?.errors ?? null,
    query_count: record.queries.length,
    n_plus_one: record.n_plus_one.length > 0,
    ...replayMarking(record, replayKey),
  }
}

export function statusColor(status: number, color: Colors): (text: string) => string {
  if (status >= 500) return color.red
  if (status >= 400) return color.yellow
  if (status >= 300) return color.cyan
  return color.green
}

export function formatMs(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(ms < 10 ? 2 : 1)} ms`
}

/** `2026-01-02 10:11:12  GET  /api/posts  200  3.1 ms  svc_ab12...` */
export function summaryLine(summary: TraceSummaryJson, color: Colors): string[] {
  const when = summary.timestamp.replace('T', ' ').slice(0, 19)
  const flags = [summary.exception ? color.red(summary.exception) : '', summary.n_plus_one ? color.yellow('N+1') : ''].filter(Boolean).join(' ')
  return [
    color.dim(when),
    summary.method,
    summary.path,
    statusColor(summary.status_code, color)(String(summary.status_code)),
    formatMs(summary.duration_ms),
    summary.trace_id,
    flags,
  ]
}

export const SUMMARY_HEADERS = ['TIME', 'METHOD', 'PATH', 'STATUS', 'DURATION', 'TRACE ID', '']
