/**
 * Compare two traces (any two): VS Code's diff editor between the parts of
 * each that can differ meaningfully (request, response, SQL, middleware,
 * exception), ids and timings left out so the diff shows what changed.
 */
import * as vscode from 'vscode'
import { SvcRequest } from '../../cli/contract/lsp.ts'
import type { TraceRecordJson } from '../../cli/contract/traces.ts'
import type { ResponseDocuments } from './response-documents.ts'
import type { SvcClient } from './svc-client.ts'
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
    response: { headers: sorted(trace.response.headers), body: trace.response.body.content },
  }
}

export async function compareTraces(client: SvcClient, documents: ResponseDocuments, first: string, second: string): Promise<void> {
  const [a, b] = await Promise.all([client.request(SvcRequest.trace, { id: first }), client.request(SvcRequest.trace, { id: second })])
  const left = documents.set(`compare/${a.trace.trace_id}.json`, comparable(a.trace))
  const right = documents.set(`compare/${b.trace.trace_id}.json`, comparable(b.trace))
  const title = `${a.trace.status_code} ${a.trace.method} ${requestTarget(a.trace)} ↔ ${b.trace.status_code} ${b.trace.method} ${requestTarget(b.trace)}`
  await vscode.commands.executeCommand('vscode.diff', left, right, title, { preview: false })
}

function sorted(record: Record<string, string>): Record<string, string> {
  const volatile = new Set(['x-service-trace-id', 'date', 'x-svc-replay-of'])
  return Object.fromEntries(Object.entries(record).filter(([name]) => !volatile.has(name)).sort(([x], [y]) => x.localeCompare(y)))
}
