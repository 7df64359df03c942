/**
 * The Traces view: a live trace explorer. `TraceSource` holds the filters
 * and gets the traces (`trace:list --json`, or `log:trace --error --json` for
 * "errors only", with `--ignore` for the ignored paths, through the language
 * server), newest first. It refreshes when the server says new traces were
 * written (never on a timer: an idle editor runs nothing), unless paused.
 * `TracesTreeProvider` only shows them: pinned first, then the list (or one
 * group per route), new rows highlighted, "Load more" at the end.
 */
import * as vscode from 'vscode'
import { SvcRequest, type TraceListParams } from '../../cli/contract/lsp.ts'
import type { TraceSummaryJson } from '../../cli/contract/traces.ts'
import { formatDuration, matchesText, requestTarget, routeAnswers, routeKey, statusColorId, traceDescription, traceLabel } from './trace-format.ts'
import type { SvcClient } from './svc-client.ts'
import { formatDateTime } from './time-format.ts'

export interface TraceFilters {
  status?: string
  method?: string
  path?: string
  slow?: number
  /** A route pattern (`/api/v1/posts/{id}`): the CLI is asked for the traces this route answered (`--route`, with the path glob). */
  route?: string
}

export interface TraceListSettings {
  /** `svc.traces.limit`: the first page. */
  limit: number
  /** `svc.traces.ignore`: paths left out (`/health/*`). */
  ignore: string[]
}

/** How long a row counts as new (highlighted). */
const NEW_FOR_MS = 30_000

export class TraceSource implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>()
  readonly onDidChange = this.changed.event
  traces: TraceSummaryJson[] = []
  error: string | null = null
  filters: TraceFilters = {}
  errorsOnly = false
  /** Type-to-filter: narrows the listed rows (see matchesText). */
  text = ''
  /** Paused: new traces are not fetched until resumed. */
  live = true
  groupByRoute = false
  showIgnored = false
  /** Pages added by "Load more". */
  private pages = 0
  private readonly firstSeen = new Map<string, number>()
  /** The newest start time listed so far (epoch ms). */
  private newest: number | undefined
  private pendingWhilePaused = false
  private readonly subscription: vscode.Disposable
  private loading: Promise<void> | undefined
  private again = false
  /** What the last load listed, and for which query: a load that lists the same leaves the tree alone. */
  private lastListing: string | undefined

  constructor(
    private readonly client: SvcClient,
    private readonly settings: () => TraceListSettings,
  ) {
    this.subscription = client.onTracesChanged(() => {
      if (this.live) void this.refresh()
      else this.pendingWhilePaused = true
    })
  }

  get limit(): number {
    const page = this.settings().limit
    return page * (1 + this.pages)
  }

  params(): TraceListParams {
    const { route, method, ...filters } = this.filters
    // The CLI keeps the route's own traces (`--route`; a GET route's HEAD requests too), so that the count and
    // "Load more" are the route's. The list still keeps only the route's (routeAnswers), whatever the server.
    const ignore = this.showIgnored ? [] : this.settings().ignore
    return {
      ...filters,
      ...(route !== undefined ? { route } : {}),
      ...(method ? { method } : {}),
      ...(this.errorsOnly ? { error: true } : {}),
      ...(ignore.length > 0 ? { ignore } : {}),
      limit: this.limit,
    }
  }

  /** The rows shown: the listed ones the typed text matches. */
  visible(): TraceSummaryJson[] {
    return this.traces.filter((trace) => matchesText(trace, this.text))
  }

  /** A filter, the typed text or "errors only" narrows the list (the empty view says so). */
  get filtered(): boolean {
    return this.errorsOnly || this.text.trim() !== '' || Object.values(this.filters).some((value) => value !== undefined && value !== '')
  }

  /** The CLI may have more than it listed. */
  get hasMore(): boolean {
    return this.traces.length >= this.limit
  }

  isNew(traceId: string, now = Date.now()): boolean {
    const seen = this.firstSeen.get(traceId)
    return seen !== undefined && now - seen < NEW_FOR_MS
  }

  /** One refresh at a time; one asked for meanwhile runs after it. */
  refresh(): Promise<void> {
    if (this.loading) {
      this.again = true
      return this.loading
    }
    this.loading = this.load().finally(() => {
      this.loading = undefined
      if (this.again) {
        this.again = false
        void this.refresh()
      }
    })
    return this.loading
  }

  private async load(): Promise<void> {
    const params = this.params()
    try {
      const list = await this.client.request(SvcRequest.traces, params)
      const { route, method } = this.filters
      const traces = list.traces.filter((trace) => route === undefined || (trace.route === route && routeAnswers(method, trace.method))).sort((a, b) => Date.parse(b.timestamp) - Date.parse(a.timestamp))
      const now = Date.now()
      // New: written since the last list (none on the first load, and not older ones "Load more" brings).
      for (const trace of traces) {
        if (this.firstSeen.has(trace.trace_id)) continue
        this.firstSeen.set(trace.trace_id, this.newest !== undefined && Date.parse(trace.timestamp) > this.newest ? now : 0)
      }
      for (const trace of traces) this.newest = Math.max(this.newest ?? 0, Date.parse(trace.timestamp))
      this.traces = traces
      this.error = null
    } catch (error) {
      this.traces = []
      this.error = error instanceof Error ? error.message : String(error)
    }
    // The store also changes in ways the list does not show (pruning past the page, a checkpoint):
    // re-rendering then would only drop the row under the user's mouse and its inline actions.
    const listing = JSON.stringify([params, this.filters.route, this.error, this.traces])
    if (listing === this.lastListing) return
    this.lastListing = listing
    this.changed.fire()
  }

  setFilters(filters: TraceFilters): void {
    this.filters = filters
    this.pages = 0
    void this.refresh()
  }

  setErrorsOnly(errorsOnly: boolean): void {
    this.errorsOnly = errorsOnly
    this.pages = 0
    void this.refresh()
  }

  setText(text: string): void {
    this.text = text
    this.changed.fire()
  }

  clearFilters(): void {
    this.errorsOnly = false
    this.text = ''
    this.setFilters({})
  }

  loadMore(): Promise<void> {
    this.pages++
    return this.refresh()
  }

  setLive(live: boolean): void {
    this.live = live
    if (live && this.pendingWhilePaused) {
      this.pendingWhilePaused = false
      void this.refresh()
    } else this.changed.fire()
  }

  setGroupByRoute(group: boolean): void {
    this.groupByRoute = group
    this.changed.fire()
  }

  setShowIgnored(show: boolean): void {
    this.showIgnored = show
    void this.refresh()
  }

  describeFilters(): string {
    const parts: string[] = []
    if (!this.live) parts.push('paused')
    if (this.errorsOnly) parts.push('errors only')
    if (this.filters.status) parts.push(`status ${this.filters.status}`)
    if (this.filters.method) parts.push(this.filters.method)
    if (this.filters.route) parts.push(`route ${this.filters.route}`)
    else if (this.filters.path) parts.push(`path ${this.filters.path}`)
    if (this.filters.slow !== undefined) parts.push(`≥ ${this.filters.slow} ms`)
    if (this.text.trim() !== '') parts.push(`“${this.text.trim()}”`)
    if (this.groupByRoute) parts.push('by route')
    return parts.join(' · ')
  }

  dispose(): void {
    this.subscription.dispose()
    this.changed.dispose()
  }
}

/** Pinned traces, kept per workspace (their list lines, so that they show without asking the CLI). */
export class PinnedTraces {
  private static readonly key = 'svc.pinnedTraces'
  private readonly changed = new vscode.EventEmitter<void>()
  readonly onDidChange = this.changed.event

  constructor(private readonly memento: vscode.Memento) {}

  get all(): TraceSummaryJson[] {
    return this.memento.get<TraceSummaryJson[]>(PinnedTraces.key, [])
  }

  has(traceId: string): boolean {
    return this.all.some((trace) => trace.trace_id === traceId)
  }

  async toggle(trace: TraceSummaryJson): Promise<boolean> {
    const pinned = this.has(trace.trace_id)
    await this.memento.update(PinnedTraces.key, pinned ? this.all.filter((t) => t.trace_id !== trace.trace_id) : [trace, ...this.all])
    this.changed.fire()
    return !pinned
  }

  dispose(): void {
    this.changed.dispose()
  }
}

export type TraceNode =
  | { kind: 'trace'; trace: TraceSummaryJson; pinned: boolean }
  | { kind: 'pinned'; traces: TraceSummaryJson[] }
  | { kind: 'route'; key: string; traces: TraceSummaryJson[] }
  | { kind: 'more' }
  | { kind: 'message'; message: string; error: boolean; command?: vscode.Command }

export class TracesTreeProvider implements vscode.TreeDataProvider<TraceNode> {
  private readonly changed = new vscode.EventEmitter<TraceNode | undefined>()
  readonly onDidChangeTreeData = this.changed.event

  constructor(
    private readonly source: TraceSource,
    private readonly pins: PinnedTraces,
  ) {
    source.onDidChange(() => this.changed.fire(undefined))
    pins.onDidChange(() => this.changed.fire(undefined))
  }

  getChildren(node?: TraceNode): TraceNode[] {
    if (node?.kind === 'pinned') return node.traces.map((trace) => ({ kind: 'trace', trace, pinned: true }))
    if (node?.kind === 'route') return node.traces.map((trace) => ({ kind: 'trace', trace, pinned: this.pins.has(trace.trace_id) }))
    if (node !== undefined) return []
    const nodes: TraceNode[] = []
    const pinned = this.pins.all
    if (pinned.length > 0) nodes.push({ kind: 'pinned', traces: pinned })
    if (this.source.error !== null) return [...nodes, { kind: 'message', message: this.source.error, error: true }]
    const rows = this.source.visible()
    if (rows.length === 0) {
      // With nothing at all the view's welcome text says why; under the pinned ones, a row says it.
      if (nodes.length === 0) return []
      nodes.push(
        this.source.filtered
          ? { kind: 'message', message: 'No traces match the filters', error: false, command: { command: 'svc.clearTraceFilters', title: 'Clear filters' } }
          : { kind: 'message', message: 'No traces recorded yet', error: false },
      )
      return nodes
    }
    if (this.source.groupByRoute) {
      const groups = new Map<string, TraceSummaryJson[]>()
      for (const trace of rows) groups.set(routeKey(trace), [...(groups.get(routeKey(trace)) ?? []), trace])
      for (const [key, traces] of groups) nodes.push({ kind: 'route', key, traces })
    } else {
      for (const trace of rows) nodes.push({ kind: 'trace', trace, pinned: this.pins.has(trace.trace_id) })
    }
    if (this.source.hasMore) nodes.push({ kind: 'more' })
    return nodes
  }

  getTreeItem(node: TraceNode): vscode.TreeItem {
    switch (node.kind) {
      case 'message': {
        const item = new vscode.TreeItem(node.message)
        item.iconPath = new vscode.ThemeIcon(node.error ? 'error' : 'info', node.error ? new vscode.ThemeColor('errorForeground') : undefined)
        item.tooltip = node.message
        item.command = node.command
        if (node.command) item.description = node.command.title
        return item
      }
      case 'more': {
        const item = new vscode.TreeItem('Load more…')
        item.iconPath = new vscode.ThemeIcon('fold-down')
        item.command = { command: 'svc.loadMoreTraces', title: 'Load more' }
        item.contextValue = 'loadMore'
        return item
      }
      case 'pinned': {
        const item = new vscode.TreeItem('Pinned', vscode.TreeItemCollapsibleState.Expanded)
        item.id = 'pinned'
        item.iconPath = new vscode.ThemeIcon('pinned')
        item.description = `${node.traces.length}`
        item.contextValue = 'pinnedGroup'
        return item
      }
      case 'route': {
        const item = new vscode.TreeItem(node.key, vscode.TreeItemCollapsibleState.Expanded)
        item.id = `route:${node.key}`
        const errors = node.traces.filter((trace) => trace.status_code >= 500).length
        item.description = `${node.traces.length} trace${node.traces.length === 1 ? '' : 's'}${errors > 0 ? `, ${errors} error${errors === 1 ? '' : 's'}` : ''}`
        item.iconPath = new vscode.ThemeIcon('symbol-method')
        item.contextValue = 'routeGroup'
        return item
      }
      case 'trace':
        return this.traceItem(node.trace, node.pinned)
    }
  }

  private traceItem(trace: TraceSummaryJson, pinned: boolean): vscode.TreeItem {
    const label = traceLabel(trace)
    const fresh = this.source.isNew(trace.trace_id)
    // New rows are highlighted (the whole label) until they are 30 s old in the list.
    const item = new vscode.TreeItem(fresh ? { label, highlights: [[0, label.length]] } : label)
    item.id = `${pinned ? 'pinned:' : ''}${trace.trace_id}`
    item.description = traceDescription(trace)
    item.iconPath = new vscode.ThemeIcon(trace.replay_of !== null ? 'debug-restart' : 'circle-filled', new vscode.ThemeColor(statusColorId(trace.status_code, true)))
    item.contextValue = pinned ? 'trace.pinned' : 'trace'
    item.tooltip = new vscode.MarkdownString(
      [
        `**${trace.method}** \`${requestTarget(trace)}\` → **${trace.status_code}**${fresh ? ' · new' : ''}`,
        `${formatDuration(trace.duration_ms)} · ${trace.query_count} quer${trace.query_count === 1 ? 'y' : 'ies'}${trace.n_plus_one ? ' · N+1' : ''}`,
        trace.route ? `Route \`${trace.route}\`` : 'No route matched',
        trace.exception ? `${trace.exception}: ${trace.error_message ?? ''}` : '',
        // Every field's messages: the row has room for the first one only.
        ...Object.entries(trace.errors ?? {}).map(([field, messages]) => `\`${field}\`: ${messages.join(' ')}`),
        trace.replay_of !== null ? `Replay of \`${trace.replay_of}\`` : '',
        // The client's header, not svc's replay: said, so that a trace claiming to be one is not taken for it.
        trace.unverified_replay_of !== null ? `Claims to replay \`${trace.unverified_replay_of}\`, but its replay marker does not verify: a request of its own` : '',
        trace.user_id !== null ? `User ${trace.user_id}` : '',
        `\`${trace.trace_id}\` · ${formatDateTime(trace.timestamp)}`,
      ]
        .filter(Boolean)
        .join('\n\n'),
    )
    item.command = { command: 'svc.openTrace', title: 'Open Trace', arguments: [trace.trace_id] }
    return item
  }
}
