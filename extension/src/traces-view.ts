/**
 * The Traces view. `TraceSource` holds the filters and gets the traces
 * (`trace:list --json`, or `log:trace --error --json` for "errors only",
 * through the language server), newest first, refreshing on a timer and
 * when the trace store changes; `TracesTreeProvider` only shows them.
 */
import * as vscode from 'vscode'
import { SvcRequest, type TraceListParams } from '../../cli/contract/lsp.ts'
import type { TraceSummaryJson } from '../../cli/contract/traces.ts'
import { statusTone, traceDescription, traceLabel } from './trace-format.ts'
import type { SvcClient } from './svc-client.ts'

export interface TraceFilters {
  status?: string
  method?: string
  path?: string
  slow?: number
  /** A route pattern (`/api/v1/posts/{id}`): the CLI is asked with the path glob, and the list keeps the traces that matched this route. */
  route?: string
}

export class TraceSource implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>()
  readonly onDidChange = this.changed.event
  traces: TraceSummaryJson[] = []
  error: string | null = null
  filters: TraceFilters = {}
  errorsOnly = false
  autoRefresh = true
  private timer: ReturnType<typeof setInterval> | undefined
  private readonly subscription: vscode.Disposable
  private loading: Promise<void> | undefined

  constructor(
    private readonly client: SvcClient,
    private readonly limit: () => number,
  ) {
    this.subscription = client.onTracesChanged(() => void this.refresh())
  }

  params(): TraceListParams {
    const { route: _route, ...filters } = this.filters
    return { ...filters, ...(this.errorsOnly ? { error: true } : {}), limit: this.limit() }
  }

  /** One refresh at a time; a refresh asked for meanwhile waits for it. */
  refresh(): Promise<void> {
    this.loading ??= this.load().finally(() => (this.loading = undefined))
    return this.loading
  }

  private async load(): Promise<void> {
    try {
      const list = await this.client.request(SvcRequest.traces, this.params())
      const route = this.filters.route
      this.traces = list.traces.filter((trace) => route === undefined || trace.route === route).sort((a, b) => Date.parse(b.timestamp) - Date.parse(a.timestamp))
      this.error = null
    } catch (error) {
      this.traces = []
      this.error = error instanceof Error ? error.message : String(error)
    }
    this.changed.fire()
  }

  setFilters(filters: TraceFilters): void {
    this.filters = filters
    void this.refresh()
  }

  setErrorsOnly(errorsOnly: boolean): void {
    this.errorsOnly = errorsOnly
    void this.refresh()
  }

  /** Seconds between refreshes; 0 or a disabled toggle stops the timer. */
  schedule(seconds: number): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
    if (this.autoRefresh && seconds > 0) this.timer = setInterval(() => void this.refresh(), seconds * 1000)
  }

  describeFilters(): string {
    const parts: string[] = []
    if (this.errorsOnly) parts.push('errors only')
    if (this.filters.status) parts.push(`status ${this.filters.status}`)
    if (this.filters.method) parts.push(this.filters.method)
    if (this.filters.route) parts.push(`route ${this.filters.route}`)
    else if (this.filters.path) parts.push(`path ${this.filters.path}`)
    if (this.filters.slow !== undefined) parts.push(`≥ ${this.filters.slow} ms`)
    if (!this.autoRefresh) parts.push('paused')
    return parts.join(' · ')
  }

  dispose(): void {
    if (this.timer) clearInterval(this.timer)
    this.subscription.dispose()
    this.changed.dispose()
  }
}

type TraceNode = { kind: 'trace'; trace: TraceSummaryJson } | { kind: 'error'; message: string }

export class TracesTreeProvider implements vscode.TreeDataProvider<TraceNode> {
  private readonly changed = new vscode.EventEmitter<TraceNode | undefined>()
  readonly onDidChangeTreeData = this.changed.event

  constructor(private readonly source: TraceSource) {
    source.onDidChange(() => this.changed.fire(undefined))
  }

  getChildren(node?: TraceNode): TraceNode[] {
    if (node !== undefined) return []
    if (this.source.error !== null) return [{ kind: 'error', message: this.source.error }]
    return this.source.traces.map((trace) => ({ kind: 'trace', trace }))
  }

  getTreeItem(node: TraceNode): vscode.TreeItem {
    if (node.kind === 'error') {
      const item = new vscode.TreeItem(node.message)
      item.iconPath = new vscode.ThemeIcon('error', new vscode.ThemeColor('errorForeground'))
      item.tooltip = node.message
      return item
    }
    const trace = node.trace
    const item = new vscode.TreeItem(traceLabel(trace))
    item.id = trace.trace_id
    item.description = traceDescription(trace)
    item.iconPath = new vscode.ThemeIcon('circle-filled', new vscode.ThemeColor(toneColor(statusTone(trace.status_code))))
    item.contextValue = 'trace'
    item.tooltip = new vscode.MarkdownString(
      [
        `**${trace.method}** \`${trace.path}\` → **${trace.status_code}**`,
        `${trace.duration_ms.toFixed(1)} ms · ${trace.query_count} quer${trace.query_count === 1 ? 'y' : 'ies'}${trace.n_plus_one ? ' · N+1' : ''}`,
        trace.route ? `Route \`${trace.route}\`` : 'No route matched',
        trace.exception ? `Exception: ${trace.exception}` : '',
        `\`${trace.trace_id}\` · ${new Date(trace.timestamp).toLocaleString()}`,
      ]
        .filter(Boolean)
        .join('\n\n'),
    )
    item.command = { command: 'svc.openTrace', title: 'Open Trace', arguments: [trace.trace_id] }
    return item
  }
}

function toneColor(tone: ReturnType<typeof statusTone>): string {
  switch (tone) {
    case 'server-error':
      return 'testing.iconFailed'
    case 'client-error':
      return 'list.warningForeground'
    case 'redirect':
      return 'charts.blue'
    default:
      return 'testing.iconPassed'
  }
}
