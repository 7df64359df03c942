/**
 * Compare two traces (any two): VS Code's diff editor between what
 * `comparable` (trace-comparison.ts) keeps of each.
 */
import * as vscode from 'vscode'
import { SvcRequest } from '../../cli/contract/lsp.ts'
import type { ResponseDocuments } from './response-documents.ts'
import type { SvcClient } from './svc-client.ts'
import { comparable } from './trace-comparison.ts'
import { requestTarget } from './trace-format.ts'

export async function compareTraces(client: SvcClient, documents: ResponseDocuments, first: string, second: string): Promise<void> {
  const [a, b] = await Promise.all([client.request(SvcRequest.trace, { id: first }), client.request(SvcRequest.trace, { id: second })])
  const left = documents.set(`compare/${a.trace.trace_id}.json`, comparable(a.trace))
  const right = documents.set(`compare/${b.trace.trace_id}.json`, comparable(b.trace))
  const title = `${a.trace.status_code} ${a.trace.method} ${requestTarget(a.trace)} ↔ ${b.trace.status_code} ${b.trace.method} ${requestTarget(b.trace)}`
  await vscode.commands.executeCommand('vscode.diff', left, right, title, { preview: false })
}
