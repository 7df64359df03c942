/**
 * What "Compare Traces" / "Compare with…" shows of each trace: the parts that
 * can differ meaningfully, ids and timings left out so that VS Code's diff
 * editor shows what changed. No VS Code import (unit-tested).
 */
import type { TraceRecordJson } from '../../cli/contract/traces.ts'
import { requestTarget } from './trace-format.ts'

/** What a comparison shows of a trace. */
export function comparable(trace: TraceRecordJson): Record<string, unknown> {
  return {
    request: `${trace.method} ${requestTarget(trace)}`,
    route: trace.route,
    status: trace.status_code,
    user: trace.user_id,
    headers: sorted(trace.headers),
    body: trace.body.content,
    exception: trace.exception && { class: trace.exception.class, message: trace.exception.message, status: trace.exception.status },
    middleware: trace.middleware.map((entry) => entry.name),
    queries: trace.queries.map((query) => ({ sql: query.sql, args: query.args, rows: query.rows, error: query.error })),
    n_plus_one: trace.n_plus_one.map((finding) => `${finding.count}× ${finding.shape}`),
    // What the request emitted and what each listener did (a queued one that failed under the sync driver included); the workspace's svc may predate events.
    events: (trace.events ?? []).map((event) => ({
      name: event.name,
      listeners: event.listeners.map((listener) => ({ name: listener.name, queued: listener.queued, error: listener.error })),
    })),
    events_omitted: trace.events_omitted ?? 0,
    response: { headers: sorted(trace.response.headers), body: trace.response.body.content },
  }
}

function sorted(record: Record<string, string>): Record<string, string> {
  const volatile = new Set(['x-service-trace-id', 'date', 'x-svc-replay-of'])
  return Object.fromEntries(Object.entries(record).filter(([name]) => !volatile.has(name)).sort(([x], [y]) => x.localeCompare(y)))
}
