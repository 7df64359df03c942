/**
 * The request page: edit a request (method, URL, headers, JSON body) and
 * send it to an environment's server; the answer shows read-only (status,
 * time, headers, body, and its trace id as a link to the trace), and every
 * send goes into the workspace's request history. Opened by "Send request"
 * on a route and by "Edit and send" on a trace (the request `replay --edit`
 * would show, as the CLI prepared it).
 */
import * as vscode from 'vscode'
import { SvcRequest } from '../../cli/contract/lsp.ts'
import { pickAuth, type SavedTokens } from './auth-picker.ts'
import { activeEnvironment, type Environment } from './environments.ts'
import { isRequestWebviewMessage, type EditableRequest, type HistoryEntry, type RequestPanelMessage, type SentResponse } from './messages.ts'
import { createPagePanel } from './page-panel.ts'
import type { SvcClient } from './svc-client.ts'
import { describeError } from './svc-error.ts'

export interface RequestPanelServices {
  extensionUri: vscode.Uri
  client: SvcClient
  tokens: SavedTokens
  history: vscode.Memento
  environments: () => Environment[]
  environment: () => Environment
  confirmEnvironment: (environment: Environment, what: string) => Promise<boolean>
  openTrace: (traceId: string) => Promise<unknown>
}

const HISTORY_KEY = 'svc.requestHistory'
const HISTORY_SIZE = 50

export class RequestPanel implements vscode.Disposable {
  static readonly viewType = 'svc.request'
  static current: RequestPanel | undefined

  private readonly disposables: vscode.Disposable[] = []
  private ready = false
  private pending: { request: EditableRequest; title: string } | undefined
  /** Resolves with each response shown (for tests and the palette command). */
  lastResponse: SentResponse | undefined

  static show(services: RequestPanelServices, request: EditableRequest, title: string): RequestPanel {
    let panel = RequestPanel.current
    if (panel === undefined) {
      const webview = createPagePanel(services.extensionUri, { viewType: RequestPanel.viewType, title: 'svc: Request', script: 'request', style: 'request', column: vscode.ViewColumn.Beside })
      panel = new RequestPanel(webview, services)
      RequestPanel.current = panel
    } else panel.panel.reveal(vscode.ViewColumn.Beside)
    panel.open(request, title)
    return panel
  }

  private constructor(
    readonly panel: vscode.WebviewPanel,
    private readonly services: RequestPanelServices,
  ) {
    panel.onDidDispose(() => this.dispose(), null, this.disposables)
    panel.webview.onDidReceiveMessage((message: unknown) => void this.receive(message), null, this.disposables)
  }

  private open(request: EditableRequest, title: string): void {
    this.panel.title = `svc: ${title}`
    this.pending = { request, title }
    if (this.ready) this.init()
  }

  private init(): void {
    if (this.pending === undefined) return
    const environments = this.services.environments()
    this.post({
      type: 'init',
      request: this.pending.request,
      environments: environments.map(({ name, baseUrl, production }) => ({ name, baseUrl, production })),
      environment: this.services.environment().name,
      history: this.history(),
      title: this.pending.title,
    })
  }

  private history(): HistoryEntry[] {
    return this.services.history.get<HistoryEntry[]>(HISTORY_KEY, [])
  }

  private post(message: RequestPanelMessage): void {
    void this.panel.webview.postMessage(message)
  }

  private async receive(message: unknown): Promise<void> {
    if (!isRequestWebviewMessage(message)) return
    switch (message.type) {
      case 'ready':
        this.ready = true
        this.init()
        return
      case 'openTrace':
        await this.services.openTrace(message.traceId)
        return
      case 'pickAuth':
        return this.pickAuthorization()
      case 'send':
        await this.send(message.request, message.environment)
    }
  }

  private async pickAuthorization(): Promise<void> {
    const auth = await pickAuth(this.services.client, this.services.tokens, 'svc: Authorization header')
    if (auth === undefined) return
    try {
      if (auth.kind === 'none') return this.post({ type: 'authorization', value: null })
      const token = auth.kind === 'token' ? auth.token : (await this.services.client.request(SvcRequest.authToken, { email: auth.email })).token
      this.post({ type: 'authorization', value: `Bearer ${token}` })
    } catch (error) {
      this.post({ type: 'error', message: describeError(error) })
    }
  }

  /** Sends the edited request (asking first for a production environment) and shows the answer. */
  async send(request: EditableRequest, environmentName: string): Promise<SentResponse | undefined> {
    const environment = activeEnvironment(this.services.environments(), environmentName)
    let url: URL
    try {
      url = new URL(request.url)
    } catch {
      this.post({ type: 'error', message: `Not a URL: ${request.url}` })
      return undefined
    }
    const unfilled = /\{[^}]+\}/.exec(decodeURI(url.pathname))
    if (unfilled) {
      this.post({ type: 'error', message: `Fill in ${unfilled[0]} in the URL first` })
      return undefined
    }
    const production = environment.production || this.services.environments().some((candidate) => candidate.production && url.origin === new URL(candidate.baseUrl).origin)
    if (production && !(await this.services.confirmEnvironment({ ...environment, production: true }, `send ${request.method} ${url.pathname}`))) return undefined
    this.post({ type: 'busy' })
    const started = performance.now()
    let response: SentResponse
    try {
      const headers = new Headers()
      for (const [name, value] of request.headers) if (name.trim() !== '') headers.append(name.trim(), value)
      const answer = await fetch(url, { method: request.method, headers, body: ['GET', 'HEAD'].includes(request.method) || request.body === '' ? undefined : request.body })
      const body = await answer.text()
      const answerHeaders: Array<[string, string]> = []
      answer.headers.forEach((value, name) => answerHeaders.push([name, value]))
      response = {
        status: answer.status,
        statusText: answer.statusText,
        duration_ms: Math.round((performance.now() - started) * 10) / 10,
        headers: answerHeaders.sort(([a], [b]) => a.localeCompare(b)),
        body,
        traceId: answer.headers.get('x-service-trace-id'),
      }
    } catch (error) {
      const reason = (error as { cause?: { code?: string } }).cause?.code ?? describeError(error)
      this.post({ type: 'error', message: `${request.method} ${url.href} failed: ${reason} (is the app running at ${url.origin}? svc serve)` })
      await this.remember({ at: Date.now(), environment: environment.name, request, status: null, traceId: null })
      return undefined
    }
    const history = await this.remember({ at: Date.now(), environment: environment.name, request, status: response.status, traceId: response.traceId })
    this.lastResponse = response
    this.post({ type: 'response', response, history })
    return response
  }

  private async remember(entry: HistoryEntry): Promise<HistoryEntry[]> {
    const history = [entry, ...this.history()].slice(0, HISTORY_SIZE)
    await this.services.history.update(HISTORY_KEY, history)
    return history
  }

  dispose(): void {
    if (RequestPanel.current === this) RequestPanel.current = undefined
    this.panel.dispose()
    while (this.disposables.length > 0) this.disposables.pop()?.dispose()
  }
}
