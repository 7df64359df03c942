/**
 * The Trace detail webview: one panel (reused for the trace opened next)
 * that owns its disposables. It shows `log:trace <id> --json`'s trace with
 * its route and handler (from `route:list`), and runs the actions through
 * the language server, each one the CLI's own command:
 *
 * - Replay (`replay <id>`; in a production app a dry run, `--force` only
 *   after asking; in development a request that wrote to the database asks
 *   first), Replay and diff (`--diff`, then VS Code's diff editor),
 *   Replay as… (`--as=<email>` or a saved token as `--header`), Replay on
 *   the environment's server (`--url`, asking first for a production one);
 * - Copy as curl (`--format=curl --url=<environment>`, as a user when the
 *   trace's token was redacted), Create regression test (`--test`, the file
 *   opened from the project root), Why? (`api:why <method> <path> --id`),
 *   Edit and send (the request page), Compare with… (diff editor), Pin.
 */
import * as vscode from 'vscode'
import { SvcRequest, type ReplayParams } from '../../cli/contract/lsp.ts'
import type { RouteJson } from '../../cli/contract/routes.ts'
import type { ReplayJson, TraceRecordJson, TraceSummaryJson, WhyJson } from '../../cli/contract/traces.ts'
import { authParams, describeAuth, pickAuth, type Auth, type SavedTokens } from './auth-picker.ts'
import type { Environment } from './environments.ts'
import { isTraceWebviewMessage, type EditableRequest, type TraceAction, type TracePanelMessage, type TraceWebviewMessage } from './messages.ts'
import { createPagePanel } from './page-panel.ts'
import type { ResponseDocuments } from './response-documents.ts'
import type { SvcClient } from './svc-client.ts'
import { describeError, SvcError } from './svc-error.ts'
import type { PinnedTraces } from './traces-view.ts'
import { requestTarget } from './trace-format.ts'

export interface TracePanelServices {
  extensionUri: vscode.Uri
  client: SvcClient
  responses: ResponseDocuments
  output: vscode.OutputChannel
  pins: PinnedTraces
  tokens: SavedTokens
  /** The project root (where package.json is): paths the CLI prints are relative to it. */
  projectRoot: () => string | null
  /** The app folder: route sources are relative to it. */
  appDir: () => string | null
  /** The route table's entry for a matched route. */
  routeOf: (method: string, pattern: string) => RouteJson | undefined
  environment: () => Environment
  /** Asks before sending to a production environment; true to go on. */
  confirmEnvironment: (environment: Environment, what: string) => Promise<boolean>
  openRequest: (request: EditableRequest, title: string) => Promise<void>
  openRouteHandler: (route: RouteJson) => Promise<void>
  /** Another trace, asked for (compare). */
  pickTrace: (title: string, except: string) => Promise<string | undefined>
  compare: (a: string, b: string) => Promise<void>
}

export type TraceActionResult = ReplayJson | WhyJson | undefined

export class TraceDetailPanel implements vscode.Disposable {
  static readonly viewType = 'svc.traceDetail'
  static current: TraceDetailPanel | undefined

  private readonly disposables: vscode.Disposable[] = []
  private trace: TraceRecordJson | null = null
  private summary: TraceSummaryJson | null = null
  private writes = false
  private ready = false

  /** Opens (or reuses) the panel on a trace. */
  static async show(services: TracePanelServices, traceId: string): Promise<TraceDetailPanel> {
    const existing = TraceDetailPanel.current
    if (existing) {
      existing.panel.reveal(undefined)
      await existing.load(traceId)
      return existing
    }
    const panel = createPagePanel(services.extensionUri, { viewType: TraceDetailPanel.viewType, title: `Trace ${shortId(traceId)}`, script: 'trace-detail', style: 'trace-detail' })
    const created = new TraceDetailPanel(panel, services)
    TraceDetailPanel.current = created
    await created.load(traceId)
    return created
  }

  private constructor(
    readonly panel: vscode.WebviewPanel,
    private readonly services: TracePanelServices,
  ) {
    panel.onDidDispose(() => this.dispose(), null, this.disposables)
    panel.webview.onDidReceiveMessage((message: unknown) => void this.receive(message), null, this.disposables)
    services.pins.onDidChange(() => this.trace && this.post({ type: 'pinned', pinned: services.pins.has(this.trace.trace_id) }), null, this.disposables)
  }

  get traceId(): string | null {
    return this.trace?.trace_id ?? null
  }

  async load(traceId: string): Promise<void> {
    try {
      const { trace, writes, summary } = await this.services.client.request(SvcRequest.trace, { id: traceId })
      this.trace = trace
      this.summary = summary
      this.writes = writes
      this.panel.title = `${trace.status_code} ${trace.method} ${requestTarget(trace)}`
      if (this.ready) this.postTrace()
    } catch (error) {
      this.post({ type: 'error', message: `Cannot load trace ${traceId}: ${describeError(error)}` })
      throw error
    }
  }

  private postTrace(): void {
    const trace = this.trace
    if (trace === null) return
    const route = trace.route === null ? undefined : this.services.routeOf(trace.method, trace.route)
    const environment = this.services.environment()
    const appDir = this.services.appDir()
    const source = route?.source && appDir ? { ...route.source, file: vscode.Uri.joinPath(vscode.Uri.file(appDir), route.source.file).fsPath } : null
    this.post({
      type: 'trace',
      trace,
      writes: this.writes,
      route: route ? { method: route.method, path: route.path, handler: route.handler, source } : null,
      root: this.services.projectRoot(),
      pinned: this.services.pins.has(trace.trace_id),
      environment: { name: environment.name, baseUrl: environment.baseUrl, production: environment.production },
    })
  }

  private post(message: TracePanelMessage): void {
    void this.panel.webview.postMessage(message)
  }

  private async receive(message: unknown): Promise<void> {
    if (!isTraceWebviewMessage(message)) return // only the page's own tagged messages are acted on
    switch (message.type) {
      case 'ready':
        this.ready = true
        this.postTrace()
        return
      case 'openSource':
        return this.openSource(message)
      case 'openHandler': {
        const route = this.services.routeOf(message.method, message.route)
        if (route) await this.services.openRouteHandler(route)
        return
      }
      case 'openTrace':
        await this.load(message.traceId).catch(() => undefined)
        return
      case 'action':
        await this.run(message.action, message.traceId)
    }
  }

  /** Runs an action on the shown trace (the buttons, and the palette commands). */
  async run(action: TraceAction, traceId = this.traceId): Promise<TraceActionResult> {
    if (traceId === null) return undefined
    if (traceId !== this.traceId) await this.load(traceId)
    this.post({ type: 'busy', action })
    try {
      const result = await this.perform(action, traceId)
      if (result === undefined) this.post({ type: 'notice', message: '' })
      else if ('routing' in result) this.post({ type: 'why', why: result })
      else this.post({ type: 'replayResult', replay: result })
      return result
    } catch (error) {
      const message = describeError(error)
      this.services.output.appendLine(`${action} ${traceId}: ${message}`)
      this.post({ type: 'error', message })
      void vscode.window.showErrorMessage(`svc: ${message}`)
      return undefined
    }
  }

  private replay(id: string, params: Omit<ReplayParams, 'id'>): Promise<ReplayJson> {
    return this.services.client.request(SvcRequest.replay, { id, ...params })
  }

  private async perform(action: TraceAction, id: string): Promise<TraceActionResult> {
    const trace = this.trace!
    const services = this.services
    switch (action) {
      case 'copyCurl': {
        // The command targets the environment's server, as a user when the recorded token was redacted.
        const auth = trace.headers.authorization === '[REDACTED]' ? await pickAuth(services.client, services.tokens, 'svc: copy as curl, signed in as…') : { kind: 'none' as const }
        if (auth === undefined) return undefined
        const result = await this.replay(id, { format: 'curl', url: services.environment().baseUrl, ...authParams(auth) })
        if (result.command) {
          await vscode.env.clipboard.writeText(result.command)
          void vscode.window.showInformationMessage(`svc: curl command for ${services.environment().name} copied to the clipboard`)
        }
        return result
      }
      case 'createTest': {
        const result = await this.replay(id, { test: true })
        if (result.test_file) {
          await vscode.window.showTextDocument(vscode.Uri.file(this.fromProjectRoot(result.test_file)), { preview: false, viewColumn: vscode.ViewColumn.Beside })
        }
        for (const warning of result.test_warnings) void vscode.window.showWarningMessage(`svc: ${warning}`)
        return result
      }
      case 'why':
        return services.client.request(SvcRequest.why, { id, method: trace.method, path: trace.path })
      case 'pin': {
        const pinned = await services.pins.toggle(this.summary!)
        this.post({ type: 'pinned', pinned })
        return undefined
      }
      case 'compare': {
        const other = await services.pickTrace(`svc: compare ${trace.method} ${requestTarget(trace)} with…`, id)
        if (other !== undefined) await services.compare(id, other)
        return undefined
      }
      case 'editAndSend': {
        const environment = services.environment()
        const prepared = await this.replay(id, { format: 'curl', url: environment.baseUrl })
        await services.openRequest(
          { method: prepared.request.method, url: prepared.request.url, headers: Object.entries(prepared.request.headers), body: prepared.request.body ?? '' },
          `${trace.method} ${requestTarget(trace)}`,
        )
        return undefined
      }
      case 'replayOnServer': {
        const environment = services.environment()
        if (!(await services.confirmEnvironment(environment, `replay ${trace.method} ${requestTarget(trace)}`))) return undefined
        return this.replayWithGuards(id, { url: environment.baseUrl, diff: true })
      }
      case 'replayAs': {
        const auth = await pickAuth(services.client, services.tokens, 'svc: replay as…')
        if (auth === undefined) return undefined
        return this.replayWithGuards(id, { diff: true, ...authParams(auth) }, auth)
      }
      case 'replay':
      case 'replayDiff':
        return this.replayWithGuards(id, { diff: action === 'replayDiff' })
    }
  }

  /**
   * Production: the CLI answers with a dry run; shown, then a modal asks
   * before `--force`. Development: a request that wrote to the database asks
   * first (lighter: a notification, not a dry run).
   */
  private async replayWithGuards(id: string, params: Omit<ReplayParams, 'id'>, auth?: Auth): Promise<ReplayJson | undefined> {
    const trace = this.trace!
    if (this.writes) {
      const go = 'Replay'
      this.post({ type: 'notice', message: 'This request wrote to the database: replaying it writes again. Waiting for your answer…' })
      const answer = await vscode.window.showWarningMessage(`svc: ${trace.method} ${requestTarget(trace)} wrote to the database: replaying it writes again${auth ? ` (${describeAuth(auth)})` : ''}.`, go, 'Cancel')
      if (answer !== go) return undefined
    }
    let result: ReplayJson
    try {
      result = await this.replay(id, params)
    } catch (error) {
      if (!(error instanceof SvcError) || error.code !== 'E_REPLAY_REDACTED') throw error
      // The trace kept [REDACTED] for a password or token: sending that is never the request recorded (a login
      // replayed so counts as a failed attempt). The request page lets the user type the value.
      const edit = 'Edit and send'
      const placeholders = 'Send [REDACTED]'
      const answer = await vscode.window.showWarningMessage(`svc: ${error.message}`, { modal: true, detail: 'Fill in the values in the request page, or send the placeholders as they are.' }, edit, placeholders)
      if (answer === edit) {
        await this.perform('editAndSend', id)
        return undefined
      }
      if (answer !== placeholders) return undefined
      result = await this.replay(id, { ...params, sendRedacted: true })
    }
    if (result.dry_run) {
      this.post({ type: 'replayResult', replay: result })
      const force = 'Replay with --force'
      const answer = await vscode.window.showWarningMessage(
        `This app runs in production: replaying ${result.request.method} ${result.request.url} executes it for real, with its side effects.`,
        { modal: true, detail: 'The dry run above shows the request that would be sent.' },
        force,
      )
      if (answer !== force) return result
      result = await this.replay(id, { ...params, force: true })
    }
    if (params.diff && result.response) await this.openDiff(trace, result)
    return result
  }

  private async openDiff(trace: TraceRecordJson, replay: ReplayJson): Promise<void> {
    const recorded = this.services.responses.set(`recorded/${trace.trace_id}.json`, {
      status: trace.response.status,
      headers: sortKeys(trace.response.headers),
      body: trace.response.body.content,
    })
    const replayed = this.services.responses.set(`replayed/${trace.trace_id}.json`, {
      status: replay.response!.status,
      headers: sortKeys(replay.response!.headers),
      body: replay.response!.body,
    })
    await vscode.commands.executeCommand('vscode.diff', recorded, replayed, `${trace.method} ${trace.path}: recorded ↔ replayed`, { preview: true, viewColumn: vscode.ViewColumn.Beside })
  }

  private async openSource(message: Extract<TraceWebviewMessage, { type: 'openSource' }>): Promise<void> {
    const uri = vscode.Uri.file(this.fromProjectRoot(message.file))
    const position = new vscode.Position(Math.max(0, message.line - 1), Math.max(0, message.column - 1))
    try {
      await vscode.window.showTextDocument(uri, { selection: new vscode.Range(position, position), viewColumn: vscode.ViewColumn.Beside })
    } catch (error) {
      void vscode.window.showErrorMessage(`svc: cannot open ${message.file}: ${describeError(error)}`)
    }
  }

  /** A path the CLI printed: absolute, or relative to the project root (the folder of package.json, not the app folder). */
  private fromProjectRoot(file: string): string {
    if (file.startsWith('/') || /^[A-Za-z]:[\\/]/.test(file)) return file
    const root = this.services.projectRoot()
    return root ? vscode.Uri.joinPath(vscode.Uri.file(root), file).fsPath : file
  }

  dispose(): void {
    if (TraceDetailPanel.current === this) TraceDetailPanel.current = undefined
    this.panel.dispose()
    while (this.disposables.length > 0) this.disposables.pop()?.dispose()
  }
}

function shortId(id: string): string {
  return id.length > 16 ? `${id.slice(0, 16)}…` : id
}

function sortKeys(record: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)))
}
