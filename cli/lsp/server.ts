/**
 * `svc lsp --stdio`: the language server. It wires the plain handlers
 * (handlers.ts) to a vscode-languageserver connection, keeps their state
 * (route files, the route table, recent traces, alias checks), watches the
 * route files (through the editor's file watcher when it offers one) and the
 * trace store (in process, trace-store-watch.ts), and answers the custom
 * requests with the CLI's own JSON (contract/lsp.ts).
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL, fileURLToPath } from 'node:url'
import {
  createConnection,
  DidChangeWatchedFilesNotification,
  ProposedFeatures,
  ResponseError,
  TextDocuments,
  TextDocumentSyncKind,
  type Connection,
  type FileSystemWatcher,
} from 'vscode-languageserver/node'
import { TextDocument } from 'vscode-languageserver-textdocument'
import {
  SvcNotification,
  SvcRequest,
  type ReplayParams,
  type StatsParams,
  type SvcErrorData,
  type TopParams,
  type TraceListParams,
  type TraceParams,
  type WhyParams,
} from '../contract/lsp.ts'
import type { AuthTokenJson, RouteListJson, ServerStatusJson } from '../contract/routes.ts'
import type { ReplayJson, StatsJson, TopJson, TraceJson, TraceListJson, TraceUsersJson, WhyJson } from '../contract/traces.ts'
import { CliError } from '../output/cli-error.ts'
import { findProject, type Project } from '../project/project.ts'
import { cliVersion } from '../version.ts'
import { checkAliases } from './alias-check.ts'
import { CliCommandError, createCliRunner, type CliRunner } from './cli-runner.ts'
import { codeLenses, definition, hover, workspaceDiagnostics, type ServerState } from './handlers.ts'
import { routeFilePrefix } from '../../framework/router/path-grammar.ts'
import { parseRouteFile, withLastParsed, type RouteFileModel } from './route-file.ts'
import { SourceWatch } from './source-watch.ts'
import { TraceStoreWatch } from './trace-store-watch.ts'

export interface LanguageServerOptions {
  /** The command that is `svc` (default: this process' Node and script). */
  cli?: string[]
  /** For tests: a connection other than stdio. */
  connection?: Connection
}

/** How many recent traces the CodeLens counts are computed from. */
const TRACE_WINDOW = 1000

export function startLanguageServer(options: LanguageServerOptions = {}): Connection {
  const connection = options.connection ?? createConnection(ProposedFeatures.all)
  const documents = new TextDocuments(TextDocument)
  const workspace = new Workspace(connection, documents, options.cli ?? [process.execPath, process.argv[1]!])

  connection.onInitialize((params) => {
    const folder = params.workspaceFolders?.[0]?.uri ?? params.rootUri ?? (params.rootPath ? pathToFileURL(params.rootPath).href : null)
    workspace.setRoot(folder ? fileURLToPath(folder) : process.cwd())
    workspace.codeLensRefresh = params.capabilities.workspace?.codeLens?.refreshSupport === true
    const watched = params.capabilities.workspace?.didChangeWatchedFiles
    workspace.clientWatches = watched?.dynamicRegistration === true ? { relativePatterns: watched.relativePatternSupport === true } : null
    const options = (params.initializationOptions ?? {}) as { tracePollMs?: unknown }
    if (typeof options.tracePollMs === 'number' && options.tracePollMs >= 50) workspace.tracePollMs = options.tracePollMs
    return {
      capabilities: {
        textDocumentSync: TextDocumentSyncKind.Incremental,
        codeLensProvider: { resolveProvider: false },
        hoverProvider: true,
        definitionProvider: true,
      },
      serverInfo: { name: 'svc', version: cliVersion() },
    }
  })
  connection.onInitialized(() => void workspace.start())
  connection.onShutdown(() => workspace.stop())

  const documentOf = (uri: string) => documents.get(uri)
  connection.onCodeLens((params) => {
    const document = documentOf(params.textDocument.uri)
    return document ? codeLenses(workspace.state, document) : []
  })
  connection.onHover((params) => {
    const document = documentOf(params.textDocument.uri)
    return document ? hover(workspace.state, document, params) : null
  })
  connection.onDefinition((params) => {
    const document = documentOf(params.textDocument.uri)
    return document ? definition(workspace.state, document, params) : null
  })

  connection.onRequest(SvcRequest.status, () => workspace.status())
  connection.onRequest(SvcRequest.routes, () => workspace.cliRequest<RouteListJson>(['route:list']))
  connection.onRequest(SvcRequest.traces, (params: TraceListParams) => workspace.cliRequest<TraceListJson>(traceListArgs(params ?? {})))
  connection.onRequest(SvcRequest.trace, (params: TraceParams) => workspace.cliRequest<TraceJson>(['log:trace', requireId(params)]))
  connection.onRequest(SvcRequest.replay, (params: ReplayParams) => workspace.cliRequest<ReplayJson>(replayArgs(params)))
  connection.onRequest(SvcRequest.refreshRoutes, () => workspace.refreshRoutesNow())
  connection.onRequest(SvcRequest.traceUsers, () => workspace.cliRequest<TraceUsersJson>(['trace:users']))
  connection.onRequest(SvcRequest.why, (params: WhyParams) => workspace.cliRequest<WhyJson>(whyArgs(params)))
  connection.onRequest(SvcRequest.stats, (params: StatsParams) => workspace.cliRequest<StatsJson>(['log:stats', ...daysArg(params)]))
  connection.onRequest(SvcRequest.top, (params: TopParams) =>
    workspace.cliRequest<TopJson>(['log:top', ...daysArg(params), ...(isCount(params?.limit) ? [`--limit=${params.limit}`] : [])]),
  )
  connection.onRequest(SvcRequest.authToken, (params: { email?: unknown }) => workspace.cliRequest<AuthTokenJson>(['auth:token', '--', requireEmail(params)]))
  connection.onDidChangeWatchedFiles((params) => workspace.filesChanged(params.changes.map((change) => change.uri)))

  connection.onNotification(SvcNotification.editorShown, (params: { uri?: unknown }) => {
    if (typeof params?.uri === 'string') workspace.editorShown(params.uri)
  })
  documents.onDidChangeContent((change) => workspace.documentChanged(change.document.uri))
  documents.onDidClose((change) => workspace.documentChanged(change.document.uri))
  documents.listen(connection)
  connection.listen()
  return connection
}

/** `trace:list` with its filters, or `log:trace --error` (the search) when only exceptions are asked for. */
export function traceListArgs(params: TraceListParams): string[] {
  const args = [params.error ? 'log:trace' : 'trace:list']
  if (params.error) args.push('--error')
  for (const key of ['status', 'method', 'path', 'route', 'ip', 'since'] as const) {
    const value = key === 'method' ? methodsOf(params) : params[key]
    if (typeof value === 'string' && value.trim() !== '') args.push(`--${key}=${value.trim()}`)
  }
  if (params.slow === true) args.push('--slow')
  else if (typeof params.slow === 'number') args.push(`--slow=${params.slow}`)
  if (typeof params.limit === 'number') args.push(`--limit=${params.limit}`)
  for (const path of strings(params.ignore)) args.push(`--ignore=${path}`)
  return args
}

/** The methods asked: a GET route's traces include its HEAD requests (the router answers HEAD with the GET route). */
function methodsOf(params: TraceListParams): string | undefined {
  const method = params.method?.trim().toUpperCase()
  return params.route !== undefined && method === 'GET' ? 'GET,HEAD' : method
}

/** Every value as `--name=value`: a value that starts with a dash stays a value. */
export function replayArgs(params: ReplayParams): string[] {
  const args = ['replay', requireId(params)]
  if (params.diff) args.push('--diff')
  if (params.force) args.push('--force')
  if (params.format) args.push(`--format=${params.format}`)
  if (params.test) args.push('--test')
  if (params.sendRedacted) args.push('--send-redacted')
  if (typeof params.as === 'string' && params.as.trim() !== '') args.push(`--as=${params.as.trim()}`)
  else if (params.anonymous === true) args.push('--anonymous')
  for (const header of strings(params.header)) args.push(`--header=${header}`)
  if (typeof params.url === 'string' && params.url.trim() !== '') args.push(`--url=${params.url.trim()}`)
  return args
}

/** `api:why <method> <path> --id <id>`: the positionals after `--`, so that no path reads as an option. */
export function whyArgs(params: WhyParams): string[] {
  const id = requireId(params)
  const method = typeof params?.method === 'string' ? params.method.toUpperCase() : ''
  const path = typeof params?.path === 'string' ? params.path : ''
  if (!/^[A-Z]+$/.test(method) || !path.startsWith('/')) {
    throw new ResponseError<SvcErrorData>(-32602, 'api:why needs a method and a path', { code: 'E_BAD_ARGUMENTS', message: 'api:why needs a method and a path', hint: null })
  }
  return ['api:why', `--id=${id}`, '--', method, path]
}

function requireEmail(params: { email?: unknown } | undefined): string {
  const email = params?.email
  if (typeof email !== 'string' || email.trim() === '') {
    throw new ResponseError<SvcErrorData>(-32602, 'An email is required', { code: 'E_BAD_ARGUMENTS', message: 'An email is required', hint: null })
  }
  return email.trim()
}

function daysArg(params: { days?: unknown } | undefined): string[] {
  return typeof params?.days === 'number' && params.days > 0 ? [`--days=${params.days}`] : []
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string' && item.trim() !== '') : []
}

function requireId(params: { id?: unknown } | undefined): string {
  const id = params?.id
  if (typeof id !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9_-]*$/.test(id)) {
    throw new ResponseError<SvcErrorData>(-32602, 'A trace id is required', { code: 'E_BAD_ARGUMENTS', message: 'A trace id is required', hint: null })
  }
  return id
}

class Workspace {
  root = process.cwd()
  project: Project | null = null
  projectError: SvcErrorData | null = null
  codeLensRefresh = false
  /** The editor watches the source folders for the server (null: the server watches them itself). */
  clientWatches: { relativePatterns: boolean } | null = null
  tracePollMs = 1000
  private runner: CliRunner | undefined
  private readonly models = new Map<string, { text: string; model: RouteFileModel }>()
  /** Each route file's last model that parsed: not cleared on refresh, since a saved syntax error must not drop the lenses either. */
  private readonly parsedModels = new Map<string, RouteFileModel>()
  private routeTable: ServerState['routeTable'] = null
  private appError: SvcErrorData | null = null
  private traces: ServerState['traces'] = null
  private aliasErrors = new Map<string, string | null>()
  private sourceWatch: SourceWatch | undefined
  private traceWatch: TraceStoreWatch | undefined
  private timers = new Map<string, NodeJS.Timeout>()
  private stopped = false

  constructor(
    private readonly connection: Connection,
    private readonly documents: TextDocuments<TextDocument>,
    private readonly cli: string[],
  ) {}

  readonly state: ServerState = {
    appDir: null,
    routeFiles: [],
    routeTable: null,
    appError: null,
    traces: null,
    aliasErrors: new Map(),
    model: (file) => this.model(file),
    readFile: (file) => this.readFile(file),
  }

  setRoot(root: string): void {
    this.root = root
    this.runner = createCliRunner({ command: this.cli, root })
  }

  async start(): Promise<void> {
    this.findProject()
    // Watching first: a change made while the first route table is built is not missed.
    await this.watch()
    await Promise.all([this.refreshRoutes(), this.refreshTraces()])
  }

  stop(): void {
    this.stopped = true
    this.sourceWatch?.close()
    this.traceWatch?.close()
    for (const timer of this.timers.values()) clearTimeout(timer)
  }

  status(): ServerStatusJson {
    const project = this.project
    return {
      state: project === null ? 'no_app' : this.appError !== null ? 'error' : 'ready',
      app: project && { root: project.root, appDir: project.appDir, storageDir: project.storageDir },
      error: this.projectError ?? this.appError,
      routes: this.routeTable?.length ?? 0,
      traces: this.traces?.length ?? null,
      replays: this.traces?.filter((trace) => trace.replay_of !== null).length ?? null,
      version: cliVersion(),
    }
  }

  async cliRequest<T>(args: string[]): Promise<T> {
    try {
      return await this.runner!.json<T>(args)
    } catch (error) {
      if (error instanceof CliCommandError) throw new ResponseError<SvcErrorData>(1, error.message, error.toJSON())
      throw error
    }
  }

  /** "Refresh Routes": the route files read again, the route table, diagnostics and CodeLens rebuilt, the table returned. */
  async refreshRoutesNow(): Promise<RouteListJson> {
    this.models.clear()
    this.findProject()
    await this.refreshRoutes()
    if (this.project === null) return this.cliRequest<RouteListJson>(['route:list']) // fails with E_NO_APP
    if (this.routeTable === null) throw new ResponseError<SvcErrorData>(1, this.appError?.message ?? 'The app does not load', this.appError ?? undefined)
    return { routes: this.routeTable }
  }

  /** Files the editor saw change (its own watcher, registered in `watch`). */
  filesChanged(uris: string[]): void {
    const appDir = this.project?.appDir
    if (appDir === undefined) return
    const sources = ['routes', 'app'].map((name) => join(appDir, name))
    const touched = uris.some((uri) => uri.startsWith('file:') && sources.some((dir) => fileURLToPath(uri).startsWith(dir)))
    if (touched) this.sourcesChanged()
  }

  /** A route file became visible: VS Code may have asked for its CodeLens before it was open here. */
  editorShown(uri: string): void {
    if (!uri.startsWith('file:') || !this.state.routeFiles.includes(fileURLToPath(uri))) return
    this.debounce('shown', 200, async () => this.refreshLenses())
  }

  documentChanged(uri: string): void {
    if (!uri.startsWith('file:') || !this.state.routeFiles.includes(fileURLToPath(uri))) return
    this.debounce('document', 200, async () => {
      await this.refreshAliases()
      this.publishDiagnostics()
    })
  }

  private findProject(): void {
    try {
      this.project = findProject(this.root)
      this.projectError = null
    } catch (error) {
      this.project = null
      this.projectError = error instanceof CliError ? { code: error.code, message: error.message, hint: error.hint ?? null } : { code: 'E_NO_APP', message: (error as Error).message, hint: null }
    }
    const appDir = this.project?.appDir ?? null
    this.state.appDir = appDir
    this.state.routeFiles = appDir === null ? [] : ['api.ts', 'web.ts'].map((name) => join(appDir, 'routes', name)).filter((file) => existsSync(file))
  }

  private async refreshRoutes(): Promise<void> {
    if (this.project === null) {
      this.routeTable = null
      this.appError = null
    } else {
      try {
        this.routeTable = (await this.runner!.json<RouteListJson>(['route:list'])).routes
        this.appError = null
      } catch (error) {
        this.routeTable = null
        this.appError = error instanceof CliCommandError ? error.toJSON() : { code: 'E_APP_LOAD', message: (error as Error).message, hint: null }
      }
    }
    this.state.routeTable = this.routeTable
    this.state.appError = this.appError
    this.statusChanged()
    await this.refreshAliases(true)
    this.publishDiagnostics()
    this.refreshLenses()
  }

  /** The client's status bar follows (an in-process svc/status, nothing run). */
  private statusChanged(): void {
    if (!this.stopped) void this.connection.sendNotification(SvcNotification.statusChanged, {})
  }

  private async refreshTraces(): Promise<void> {
    if (this.project === null) {
      this.traces = null
    } else {
      try {
        this.traces = (await this.runner!.json<TraceListJson>(['trace:list', `--limit=${TRACE_WINDOW}`])).traces
      } catch {
        this.traces = null // no trace store yet, or a CLI without the trace commands
      }
    }
    this.state.traces = this.traces
    this.statusChanged()
    this.refreshLenses()
  }

  /** Checks the aliases used in the route files (all of them again when `all`, e.g. after the kernel changed). */
  private async refreshAliases(all = false): Promise<void> {
    if (this.project === null) return
    const used = new Set<string>()
    for (const file of this.state.routeFiles) {
      for (const route of this.model(file)?.routes ?? []) for (const middleware of route.middleware) if (middleware.alias) used.add(middleware.name)
    }
    const unknown = [...used].filter((alias) => all || !this.aliasErrors.has(alias))
    if (unknown.length === 0) return
    try {
      const checked = await checkAliases(this.project, unknown)
      this.aliasErrors = new Map([...(all ? [] : this.aliasErrors), ...checked])
    } catch {
      // The kernel itself does not load: the app-load diagnostic says so.
    }
    this.state.aliasErrors = this.aliasErrors
  }

  private publishDiagnostics(): void {
    if (this.stopped) return
    for (const [file, diagnostics] of workspaceDiagnostics(this.state)) {
      void this.connection.sendDiagnostics({ uri: pathToFileURL(file).href, diagnostics })
    }
  }

  private refreshLenses(): void {
    if (this.stopped || !this.codeLensRefresh) return
    void this.connection.sendRequest('workspace/codeLens/refresh').catch(() => undefined)
  }

  private sourcesChanged(): void {
    this.debounce('routes', 300, async () => {
      this.models.clear()
      this.findProject()
      await this.refreshRoutes()
      void this.connection.sendNotification(SvcNotification.routesChanged, {})
    })
  }

  /**
   * Source folders: through the editor's own file watcher when it offers to
   * watch for the server (VS Code's survives files replaced by a rename),
   * else folder by folder here (source-watch.ts). Traces: the store itself.
   */
  private async watch(): Promise<void> {
    const project = this.project
    if (project === null || this.stopped) return
    const sources = ['routes', 'app'].map((name) => join(project.appDir, name))
    if (this.clientWatches !== null) {
      const base = pathToFileURL(project.appDir).href
      const watchers: FileSystemWatcher[] = ['routes', 'app'].map((name) =>
        this.clientWatches!.relativePatterns ? { globPattern: { baseUri: base, pattern: `${name}/**` } } : { globPattern: `${project.appDir.split('\\').join('/')}/${name}/**` },
      )
      try {
        await this.connection.client.register(DidChangeWatchedFilesNotification.type, { watchers })
      } catch {
        this.sourceWatch = new SourceWatch(sources, () => this.sourcesChanged())
      }
    } else {
      this.sourceWatch = new SourceWatch(sources, () => this.sourcesChanged())
    }
    this.traceWatch = new TraceStoreWatch(project, () => this.tracesWritten(), { intervalMs: this.tracePollMs })
    await this.traceWatch.start()
  }

  /** New traces in the store: the recent ones read again (one `trace:list`), then the client is told. */
  private async tracesWritten(): Promise<void> {
    if (this.stopped) return
    await this.refreshTraces()
    void this.connection.sendNotification(SvcNotification.tracesChanged, {})
  }

  private debounce(key: string, ms: number, task: () => Promise<void>): void {
    clearTimeout(this.timers.get(key))
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key)
        if (!this.stopped) void task().catch((error) => this.connection.console.error(String(error)))
      }, ms),
    )
  }

  private model(file: string): RouteFileModel | null {
    const text = this.readFile(file)
    if (text === null) return null
    const cached = this.models.get(file)
    if (cached && cached.text === text) return cached.model
    const parsed = parseRouteFile(text, routeFilePrefix(file))
    if (parsed.syntaxError === null) this.parsedModels.set(file, parsed)
    const model = withLastParsed(parsed, this.parsedModels.get(file))
    this.models.set(file, { text, model })
    return model
  }

  private readFile(file: string): string | null {
    const open = this.documents.get(pathToFileURL(file).href)
    if (open) return open.getText()
    try {
      return readFileSync(file, 'utf8')
    } catch {
      return null
    }
  }
}
