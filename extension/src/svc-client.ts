/**
 * The language client: starts `svc lsp --stdio` for the workspace folder and
 * offers the custom requests with their contract types. Everything the
 * extension shows comes through here, as the CLI printed it.
 */
import * as vscode from 'vscode'
import { LanguageClient, ResponseError, RevealOutputChannelOn, TransportKind, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node'
import { SvcNotification, SvcRequest, type SvcErrorData, type SvcRequests } from '../../cli/contract/lsp.ts'
import { isMissing, resolveServerCommand, type ServerCommand } from './server-command.ts'
import { SvcError } from './svc-error.ts'

/** No `svc` to start: what was tried (the welcome view shows it). */
export class CliNotFound extends Error {
  constructor(readonly tried: string[]) {
    super(`svc was not found: ${tried.join('; ')}`)
  }
}

export class SvcClient implements vscode.Disposable {
  private client: LanguageClient | undefined
  private readonly routesChanged = new vscode.EventEmitter<void>()
  private readonly tracesChanged = new vscode.EventEmitter<void>()
  private readonly statusChanged = new vscode.EventEmitter<void>()
  readonly onRoutesChanged = this.routesChanged.event
  readonly onTracesChanged = this.tracesChanged.event
  readonly onStatusChanged = this.statusChanged.event
  command: ServerCommand | undefined

  constructor(
    private readonly folder: vscode.WorkspaceFolder,
    private readonly output: vscode.LogOutputChannel,
  ) {}

  /** Starts the server; a CliNotFound when there is no `svc` to start (nothing is spawned then). */
  async start(): Promise<void> {
    const settings = vscode.workspace.getConfiguration('svc', this.folder.uri)
    const found = resolveServerCommand(this.folder.uri.fsPath, settings.get<string>('command', ''), settings.get<string>('nodePath', 'node'))
    if (isMissing(found)) {
      this.command = undefined
      this.output.appendLine(`svc was not found. Tried:\n  ${found.tried.join('\n  ')}`)
      throw new CliNotFound(found.tried)
    }
    this.command = found
    // The stdio transport adds `--stdio` itself: the command line has it once.
    this.output.appendLine(`Starting ${found.command} ${found.args.join(' ')} --stdio (${found.origin}) in ${this.folder.uri.fsPath}`)
    const run = { command: found.command, args: found.args, transport: TransportKind.stdio, options: { cwd: this.folder.uri.fsPath, shell: process.platform === 'win32' } }
    const serverOptions: ServerOptions = { run, debug: run }
    const clientOptions: LanguageClientOptions = {
      documentSelector: [
        { scheme: 'file', language: 'typescript', pattern: '**/routes/*.ts' },
        { scheme: 'file', language: 'javascript', pattern: '**/routes/*.js' },
      ],
      workspaceFolder: this.folder,
      outputChannel: this.output,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      initializationFailedHandler: (error) => {
        this.output.appendLine(`svc language server failed to initialize: ${String(error)}`)
        return false
      },
    }
    this.client = new LanguageClient('svc', 'svc language server', serverOptions, clientOptions)
    await this.client.start()
    this.client.onNotification(SvcNotification.routesChanged, () => this.routesChanged.fire())
    this.client.onNotification(SvcNotification.tracesChanged, () => this.tracesChanged.fire())
    this.client.onNotification(SvcNotification.statusChanged, () => this.statusChanged.fire())
  }

  /** Tells the server a route file is now shown (it refreshes the CodeLens). */
  editorShown(uri: vscode.Uri): void {
    if (this.client?.isRunning()) void this.client.sendNotification(SvcNotification.editorShown, { uri: uri.toString() })
  }

  get running(): boolean {
    return this.client?.isRunning() ?? false
  }

  async request<K extends keyof SvcRequests>(method: K, params: SvcRequests[K][0]): Promise<SvcRequests[K][1]> {
    if (!this.client) throw new Error('The svc language server is not running')
    try {
      return (await this.client.sendRequest(method, params)) as SvcRequests[K][1]
    } catch (error) {
      throw toSvcError(error)
    }
  }

  status() {
    return this.request(SvcRequest.status, {})
  }

  /** The started command, for "Open settings" and the output. */
  describeCommand(): string {
    return this.command === undefined ? 'none' : `${this.command.command} ${this.command.args.join(' ')} --stdio`
  }

  async stop(): Promise<void> {
    const client = this.client
    this.client = undefined
    if (client) await client.stop().catch(() => undefined)
  }

  dispose(): void {
    void this.stop()
    this.routesChanged.dispose()
    this.tracesChanged.dispose()
    this.statusChanged.dispose()
  }
}

function toSvcError(error: unknown): Error {
  if (error instanceof ResponseError) {
    const data = error.data as SvcErrorData | undefined
    return new SvcError(data?.message ?? error.message, data?.code ?? 'E_LSP', data?.hint ?? null)
  }
  return error instanceof Error ? error : new Error(String(error))
}
