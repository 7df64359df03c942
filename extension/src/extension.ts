/**
 * The svc extension: starts the language server (`svc lsp --stdio`), shows
 * the Routes and Traces views, the trace detail webview, a status bar item
 * and the palette commands. Everything shown comes from the CLI's JSON,
 * through the language server's custom requests.
 */
import * as vscode from 'vscode'
import type { RouteJson, ServerStatusJson } from '../../cli/contract/routes.ts'
import type { TraceSummaryJson } from '../../cli/contract/traces.ts'
import { ResponseDocuments } from './response-documents.ts'
import { RouteSource, RoutesTreeProvider } from './routes-view.ts'
import { describeError, SvcClient } from './svc-client.ts'
import { TraceDetailPanel, type TraceAction, type TracePanelServices } from './trace-panel.ts'
import { formatDuration, traceLabel } from './trace-format.ts'
import { TraceSource, TracesTreeProvider, type TraceFilters } from './traces-view.ts'
import { pathGlob } from '../../framework/router/path-grammar.ts'

type ViewState = 'starting' | 'ready' | 'noApp' | 'error'

export interface SvcExtensionApi {
  /** For tests and other extensions: the server's status. */
  status(): Promise<ServerStatusJson | null>
}

export async function activate(context: vscode.ExtensionContext): Promise<SvcExtensionApi> {
  const output = vscode.window.createOutputChannel('svc', { log: true })
  context.subscriptions.push(output)
  const folder = vscode.workspace.workspaceFolders?.[0]
  let status: ServerStatusJson | null = null
  const setState = (state: ViewState) => void vscode.commands.executeCommand('setContext', 'svc.state', state)
  setState('starting')

  const statusBar = vscode.window.createStatusBarItem('svc.status', vscode.StatusBarAlignment.Left, 10)
  statusBar.name = 'svc'
  statusBar.command = 'svc.showOutput'
  statusBar.text = '$(sync~spin) svc'
  statusBar.show()
  context.subscriptions.push(statusBar)

  const responses = new ResponseDocuments()
  context.subscriptions.push(responses, vscode.workspace.registerTextDocumentContentProvider(ResponseDocuments.scheme, responses))

  if (folder === undefined) {
    setState('noApp')
    statusBar.text = '$(circle-slash) svc: no folder'
    return { status: async () => null }
  }

  const client = new SvcClient(folder, output)
  context.subscriptions.push(client)
  const settings = () => vscode.workspace.getConfiguration('svc', folder.uri)
  const appDir = () => status?.app?.appDir ?? null

  const routeSource = new RouteSource(client)
  const traceSource = new TraceSource(client, () => settings().get<number>('traces.limit', 100))
  const routesView = vscode.window.createTreeView('svc.routes', { treeDataProvider: new RoutesTreeProvider(routeSource, appDir), showCollapseAll: true })
  const tracesView = vscode.window.createTreeView('svc.traces', { treeDataProvider: new TracesTreeProvider(traceSource) })
  context.subscriptions.push(routeSource, traceSource, routesView, tracesView)

  const panelServices: TracePanelServices = { extensionUri: context.extensionUri, client, responses, appDir, output }

  async function updateStatus(): Promise<void> {
    try {
      status = await client.status()
    } catch (error) {
      status = null
      statusBar.text = '$(error) svc: server not reachable'
      statusBar.tooltip = describeError(error)
      setState('error')
      return
    }
    if (status.state === 'no_app') {
      statusBar.text = '$(circle-slash) svc: no app'
      statusBar.tooltip = status.error?.message ?? 'No svc app in this workspace'
      setState('noApp')
      return
    }
    const traces = status.traces === null ? 'no traces' : `${status.traces} trace${status.traces === 1 ? '' : 's'}`
    statusBar.text = status.state === 'error' ? `$(warning) svc: app does not load` : `$(pulse) svc: ${status.routes} routes · ${traces}`
    statusBar.tooltip = status.state === 'error' ? `${status.error?.message ?? ''}${status.error?.hint ? `\nfix: ${status.error.hint}` : ''}` : `svc ${status.version} · ${status.app?.appDir ?? ''}`
    setState('ready')
  }

  const updateTraceDescription = () => {
    tracesView.description = traceSource.describeFilters() || undefined
  }
  traceSource.onDidChange(() => {
    updateTraceDescription()
    void updateStatus()
  })
  routeSource.onDidChange(() => void updateStatus())

  async function start(): Promise<void> {
    setState('starting')
    statusBar.text = '$(sync~spin) svc'
    try {
      await client.start()
    } catch (error) {
      output.appendLine(`Cannot start the svc language server: ${describeError(error)}`)
      statusBar.text = '$(error) svc: server not running'
      statusBar.tooltip = describeError(error)
      setState('error')
      return
    }
    await updateStatus()
    if (status?.state === 'no_app') return
    await Promise.all([routeSource.refresh(), traceSource.refresh()])
    traceSource.schedule(settings().get<number>('traces.autoRefresh', 5))
  }

  const pickTrace = async (argument: unknown): Promise<string | undefined> => {
    if (typeof argument === 'string') return argument
    const node = argument as { trace?: TraceSummaryJson } | undefined
    if (node?.trace?.trace_id) return node.trace.trace_id
    if (traceSource.traces.length === 0) await traceSource.refresh()
    const picked = await vscode.window.showQuickPick(
      traceSource.traces.map((trace) => ({ label: traceLabel(trace), description: `${formatDuration(trace.duration_ms)} · ${trace.trace_id}`, id: trace.trace_id })),
      { title: 'svc: pick a trace', placeHolder: 'Newest first', matchOnDescription: true },
    )
    return picked?.id
  }

  const traceAction = (action: TraceAction) => async (argument?: unknown) => {
    const id = await pickTrace(argument)
    if (id === undefined) return undefined
    const panel = await TraceDetailPanel.show(panelServices, id)
    return panel.run(action, id)
  }

  const command = (name: string, run: (...args: any[]) => unknown) => context.subscriptions.push(vscode.commands.registerCommand(name, run))

  command('svc.refreshRoutes', () => routeSource.refresh())
  command('svc.refreshTraces', () => traceSource.refresh())
  command('svc.toggleErrorsOnly', () => traceSource.setErrorsOnly(!traceSource.errorsOnly))
  command('svc.clearTraceFilters', () => {
    traceSource.errorsOnly = false
    traceSource.setFilters({})
  })
  command('svc.toggleAutoRefresh', () => {
    traceSource.autoRefresh = !traceSource.autoRefresh
    traceSource.schedule(settings().get<number>('traces.autoRefresh', 5))
    updateTraceDescription()
  })
  command('svc.filterTraces', async () => {
    const filters = await askFilters(traceSource.filters)
    if (filters) traceSource.setFilters(filters)
  })
  command('svc.openTrace', async (argument?: unknown) => {
    const id = await pickTrace(argument)
    if (id === undefined) return undefined
    try {
      return await TraceDetailPanel.show(panelServices, id)
    } catch (error) {
      void vscode.window.showErrorMessage(`svc: ${describeError(error)}`)
      return undefined
    }
  })
  command('svc.replayTrace', traceAction('replay'))
  command('svc.replayTraceDiff', traceAction('replayDiff'))
  command('svc.copyCurl', traceAction('copyCurl'))
  command('svc.createRegressionTest', traceAction('createTest'))
  command('svc.openRouteHandler', (route: RouteJson) => openRouteHandler(route, appDir()))
  command('svc.openRouteTraces', async (route: Pick<RouteJson, 'method' | 'path'> | { route: RouteJson }) => {
    const target = 'route' in route ? route.route : route
    traceSource.setFilters({ path: pathGlob(target.path), route: target.path, ...(target.method === 'ANY' ? {} : { method: target.method }) })
    await vscode.commands.executeCommand('svc.traces.focus')
  })
  command('svc.sendRequest', (route: Pick<RouteJson, 'method' | 'path'> | { route: RouteJson }) => sendRequest('route' in route ? route.route : route, settings().get<string>('baseUrl', 'http://127.0.0.1:8080'), traceSource))
  command('svc.showOutput', () => output.show(true))
  command('svc.openDocs', () => vscode.commands.executeCommand('markdown.showPreview', vscode.Uri.joinPath(context.extensionUri, 'README.md')))
  command('svc.restartServer', async () => {
    await client.stop()
    await start()
  })

  context.subscriptions.push(
    vscode.window.onDidChangeActiveTextEditor((editor) => {
      const uri = editor?.document.uri
      if (uri?.scheme === 'file' && /[\\/]routes[\\/][^\\/]+\.[cm]?[jt]s$/.test(uri.fsPath)) client.editorShown(uri)
    }),
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (event.affectsConfiguration('svc.traces.autoRefresh', folder.uri)) traceSource.schedule(settings().get<number>('traces.autoRefresh', 5))
      if (event.affectsConfiguration('svc.command', folder.uri) || event.affectsConfiguration('svc.nodePath', folder.uri)) {
        await client.stop()
        await start()
      }
    }),
  )

  await start()
  return {
    status: async () => {
      await updateStatus()
      return status
    },
  }
}

export function deactivate(): void {
  TraceDetailPanel.current?.dispose()
}

async function askFilters(current: TraceFilters): Promise<TraceFilters | undefined> {
  const items = [
    { label: 'Status', key: 'status', description: current.status ?? 'e.g. 404, 4xx, 5xx' },
    { label: 'Method', key: 'method', description: current.method ?? 'GET, POST…' },
    { label: 'Path', key: 'path', description: current.path ?? 'substring or glob: /api/v1/posts*' },
    { label: 'Slower than (ms)', key: 'slow', description: current.slow !== undefined ? String(current.slow) : 'e.g. 200' },
  ] as const
  const picked = await vscode.window.showQuickPick(items, { title: 'svc: filter traces by' })
  if (!picked) return undefined
  const previous = picked.key === 'slow' ? (current.slow !== undefined ? String(current.slow) : '') : (current[picked.key] ?? '')
  const value = await vscode.window.showInputBox({
    title: `svc: traces with ${picked.label.toLowerCase()}`,
    value: previous,
    prompt: 'Empty clears this filter',
    validateInput: (text) => (picked.key === 'slow' && text.trim() !== '' && !/^\d+$/.test(text.trim()) ? 'A whole number of milliseconds' : undefined),
  })
  if (value === undefined) return undefined
  const next: TraceFilters = { ...current }
  const trimmed = value.trim()
  if (picked.key === 'slow') {
    if (trimmed === '') delete next.slow
    else next.slow = Number(trimmed)
  } else if (trimmed === '') {
    delete next[picked.key]
  } else {
    next[picked.key] = picked.key === 'method' ? trimmed.toUpperCase() : trimmed
  }
  return next
}

/** Opens the handler of a route: the language server's definition at the route's source, else the route itself. */
async function openRouteHandler(route: RouteJson, appDir: string | null): Promise<void> {
  if (!route?.source || appDir === null) {
    void vscode.window.showInformationMessage(`svc: ${route?.method} ${route?.path} is built in (no source in this app)`)
    return
  }
  const uri = vscode.Uri.joinPath(vscode.Uri.file(appDir), route.source.file)
  const position = new vscode.Position(route.source.line - 1, Math.max(0, route.source.column - 1))
  await vscode.workspace.openTextDocument(uri)
  const locations = await vscode.commands.executeCommand<Array<vscode.Location | vscode.LocationLink>>('vscode.executeDefinitionProvider', uri, position)
  const target = locations?.[0]
  if (target) {
    const targetUri = 'targetUri' in target ? target.targetUri : target.uri
    const range = 'targetRange' in target ? (target.targetSelectionRange ?? target.targetRange) : target.range
    await vscode.window.showTextDocument(targetUri, { selection: range })
    return
  }
  await vscode.window.showTextDocument(uri, { selection: new vscode.Range(position, position) })
}

/** Sends a request to the running app (`svc.baseUrl`) and shows the response. */
async function sendRequest(route: Pick<RouteJson, 'method' | 'path'>, baseUrl: string, traces: TraceSource): Promise<void> {
  const method = route.method === 'ANY' ? 'GET' : route.method
  const firstParam = /\{[^}]+\}/.exec(route.path)
  const url = await vscode.window.showInputBox({
    title: `svc: ${method} ${route.path}`,
    prompt: 'Fill in the parameters (the app must be running: svc serve)',
    value: `${baseUrl.replace(/\/$/, '')}${route.path.replace(/\/\{[^}]+\?\}/g, '')}`,
    valueSelection: firstParam ? [baseUrl.replace(/\/$/, '').length + firstParam.index, baseUrl.replace(/\/$/, '').length + firstParam.index + firstParam[0].length] : undefined,
  })
  if (!url) return
  let body: string | undefined
  if (['POST', 'PUT', 'PATCH'].includes(method)) {
    body = await vscode.window.showInputBox({ title: `svc: ${method} body (JSON)`, value: '{}', validateInput: (text) => (isJson(text) ? undefined : 'Not valid JSON') })
    if (body === undefined) return
  }
  try {
    const response = await fetch(url, { method, headers: body !== undefined ? { 'content-type': 'application/json' } : {}, body })
    const text = await response.text()
    const content = [`// ${method} ${url} → ${response.status} ${response.statusText}`, `// trace: ${response.headers.get('x-service-trace-id') ?? 'none'}`, pretty(text)].join('\n')
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument({ language: 'jsonc', content }), { viewColumn: vscode.ViewColumn.Beside, preview: true })
    void traces.refresh()
  } catch (error) {
    void vscode.window.showErrorMessage(`svc: ${method} ${url} failed: ${describeError(error)} (is the app running? svc serve)`)
  }
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

function pretty(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2)
  } catch {
    return text
  }
}
