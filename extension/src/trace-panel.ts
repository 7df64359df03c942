/**
 * The Trace detail webview: one panel (reused for the trace opened next) that
 * owns its disposables. It shows `log:trace <id> --json`'s trace and runs the
 * actions through the language server: Replay (`replay <id> --json`; in a
 * production app that is a dry run, and --force only after asking), Replay
 * and diff (`--diff`, then VS Code's diff editor between the recorded and
 * new responses), Copy as curl (`--format=curl`), Create regression test
 * (`--test`).
 */
import * as vscode from 'vscode'
import { SvcRequest, type ReplayParams } from '../../cli/contract/lsp.ts'
import type { ReplayJson, TraceRecordJson } from '../../cli/contract/traces.ts'
import { isWebviewMessage, type PanelMessage, type WebviewMessage } from './messages.ts'
import { describeError, type SvcClient } from './svc-client.ts'
import { createNonce, traceDetailHtml } from './trace-detail-html.ts'
import type { ResponseDocuments } from './response-documents.ts'

export type TraceAction = 'replay' | 'replayDiff' | 'copyCurl' | 'createTest'

export interface TracePanelServices {
  extensionUri: vscode.Uri
  client: SvcClient
  responses: ResponseDocuments
  appDir: () => string | null
  output: vscode.OutputChannel
}

export class TraceDetailPanel implements vscode.Disposable {
  static readonly viewType = 'svc.traceDetail'
  static current: TraceDetailPanel | undefined

  private readonly disposables: vscode.Disposable[] = []
  private trace: TraceRecordJson | null = null
  private ready = false

  /** Opens (or reuses) the panel on a trace. */
  static async show(services: TracePanelServices, traceId: string): Promise<TraceDetailPanel> {
    const existing = TraceDetailPanel.current
    if (existing) {
      existing.panel.reveal(vscode.ViewColumn.Active)
      await existing.load(traceId)
      return existing
    }
    const media = vscode.Uri.joinPath(services.extensionUri, 'media')
    const panel = vscode.window.createWebviewPanel(TraceDetailPanel.viewType, `Trace ${shortId(traceId)}`, vscode.ViewColumn.Active, {
      enableScripts: true,
      retainContextWhenHidden: true,
      localResourceRoots: [media],
    })
    const created = new TraceDetailPanel(panel, services)
    TraceDetailPanel.current = created
    await created.load(traceId)
    return created
  }

  private constructor(
    readonly panel: vscode.WebviewPanel,
    private readonly services: TracePanelServices,
  ) {
    const webview = panel.webview
    const media = vscode.Uri.joinPath(services.extensionUri, 'media')
    webview.html = traceDetailHtml({
      cspSource: webview.cspSource,
      nonce: createNonce(),
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(media, 'trace-detail.js')).toString(),
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(media, 'trace-detail.css')).toString(),
      title: 'Trace',
    })
    panel.onDidDispose(() => this.dispose(), null, this.disposables)
    webview.onDidReceiveMessage((message: unknown) => void this.receive(message), null, this.disposables)
  }

  get traceId(): string | null {
    return this.trace?.trace_id ?? null
  }

  async load(traceId: string): Promise<void> {
    try {
      this.trace = (await this.services.client.request(SvcRequest.trace, { id: traceId })).trace
      this.panel.title = `${this.trace.status_code} ${this.trace.method} ${this.trace.path}`
      if (this.ready) this.post({ type: 'trace', trace: this.trace })
    } catch (error) {
      this.post({ type: 'error', message: `Cannot load trace ${traceId}: ${describeError(error)}` })
      throw error
    }
  }

  private post(message: PanelMessage): void {
    void this.panel.webview.postMessage(message)
  }

  private async receive(message: unknown): Promise<void> {
    if (!isWebviewMessage(message)) return // only the page's own tagged messages are acted on
    if (message.type === 'ready') {
      this.ready = true
      if (this.trace) this.post({ type: 'trace', trace: this.trace })
      return
    }
    if (message.type === 'openSource') return this.openSource(message)
    await this.run(message.type, message.traceId)
  }

  /** Runs an action on the shown trace (the buttons, and the palette commands). */
  async run(action: TraceAction, traceId = this.traceId): Promise<ReplayJson | undefined> {
    if (traceId === null) return undefined
    this.post({ type: 'busy', action })
    try {
      const result = await this.perform(action, traceId)
      if (result) this.post({ type: 'replayResult', replay: result })
      return result
    } catch (error) {
      const message = describeError(error)
      this.services.output.appendLine(`${action} ${traceId}: ${message}`)
      this.post({ type: 'error', message })
      void vscode.window.showErrorMessage(`svc: ${message}`)
      return undefined
    }
  }

  private async perform(action: TraceAction, id: string): Promise<ReplayJson | undefined> {
    const client = this.services.client
    const replay = (params: Omit<ReplayParams, 'id'>) => client.request(SvcRequest.replay, { id, ...params })
    switch (action) {
      case 'copyCurl': {
        const result = await replay({ format: 'curl' })
        if (result.command) {
          await vscode.env.clipboard.writeText(result.command)
          void vscode.window.showInformationMessage('svc: curl command copied to the clipboard')
        }
        return result
      }
      case 'createTest': {
        const result = await replay({ test: true })
        if (result.test_file) {
          const uri = vscode.Uri.file(this.resolvePath(result.test_file))
          await vscode.window.showTextDocument(uri, { preview: false, viewColumn: vscode.ViewColumn.Beside })
        }
        return result
      }
      case 'replay':
      case 'replayDiff': {
        const diff = action === 'replayDiff'
        let result = await replay({ diff })
        if (result.dry_run) {
          // A production app: replay printed what it would send. Show it, then ask before --force.
          this.post({ type: 'replayResult', replay: result })
          const force = 'Replay with --force'
          const answer = await vscode.window.showWarningMessage(
            `This app runs in production: replaying ${result.request.method} ${result.request.url} executes it for real, with its side effects.`,
            { modal: true, detail: 'The dry run above shows the request that would be sent.' },
            force,
          )
          if (answer !== force) return result
          result = await replay({ diff, force: true })
        }
        if (diff && result.response && this.trace) await this.openDiff(this.trace, result)
        return result
      }
    }
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

  private async openSource(message: Extract<WebviewMessage, { type: 'openSource' }>): Promise<void> {
    const uri = vscode.Uri.file(this.resolvePath(message.file))
    const position = new vscode.Position(Math.max(0, message.line - 1), Math.max(0, message.column - 1))
    try {
      await vscode.window.showTextDocument(uri, { selection: new vscode.Range(position, position), viewColumn: vscode.ViewColumn.Beside })
    } catch (error) {
      void vscode.window.showErrorMessage(`svc: cannot open ${message.file}: ${describeError(error)}`)
    }
  }

  private resolvePath(file: string): string {
    if (file.startsWith('/') || /^[A-Za-z]:[\\/]/.test(file)) return file
    const appDir = this.services.appDir()
    return appDir ? vscode.Uri.joinPath(vscode.Uri.file(appDir), file).fsPath : file
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
