/**
 * The svc extension: starts the language server (`svc lsp --stdio`), shows
 * the Routes and Traces views, the trace detail, request and dashboard
 * pages, a status bar item per state and environment, and the palette
 * commands. Everything shown comes from the CLI's JSON, through the language
 * server's custom requests.
 */
import * as vscode from 'vscode'
import { SvcRequest } from '../../cli/contract/lsp.ts'
import type { RouteJson, ServerStatusJson } from '../../cli/contract/routes.ts'
import type { TraceSummaryJson } from '../../cli/contract/traces.ts'
import { pathGlob } from '../../framework/router/path-grammar.ts'
import { SavedTokens } from './auth-picker.ts'
import { compareTraces } from './compare-traces.ts'
import { DashboardPanel } from './dashboard-panel.ts'
import { activeEnvironment, readEnvironments, type Environment } from './environments.ts'
import type { EditableRequest, TraceAction } from './messages.ts'
import { RequestPanel, type RequestPanelServices } from './request-panel.ts'
import { ResponseDocuments } from './response-documents.ts'
import { routeCallPosition } from './route-position.ts'
import { RouteSource, RoutesTreeProvider } from './routes-view.ts'
import { CliNotFound, SvcClient } from './svc-client.ts'
import { describeError } from './svc-error.ts'
import { tracePickItem } from './trace-format.ts'
import { TraceDetailPanel, type TraceActionResult, type TracePanelServices } from './trace-panel.ts'
import { PinnedTraces, TraceSource, TracesTreeProvider, type TraceFilters, type TraceNode } from './traces-view.ts'

type ViewState = 'starting' | 'ready' | 'noApp' | 'error' | 'noCli'

export interface SvcExtensionApi {
  /** For tests and other extensions: the server's status. */
  status(): Promise<ServerStatusJson | null>
}

const ENVIRONMENT_KEY = 'svc.environment'

export async function activate(context: vscode.ExtensionContext): Promise<SvcExtensionApi> {
  const output = vscode.window.createOutputChannel('svc', { log: true })
  context.subscriptions.push(output)
  const folder = vscode.workspace.workspaceFolders?.[0]
  let status: ServerStatusJson | null = null
  const setContext = (key: string, value: unknown) => void vscode.commands.executeCommand('setContext', key, value)
  const setState = (state: ViewState) => setContext('svc.state', state)
  setState('starting')

  const statusBar = vscode.window.createStatusBarItem('svc.status', vscode.StatusBarAlignment.Left, 10)
  statusBar.name = 'svc'
  statusBar.command = 'svc.showOutput'
  statusBar.text = '$(sync~spin) svc'
  statusBar.show()
  const environmentBar = vscode.window.createStatusBarItem('svc.environment', vscode.StatusBarAlignment.Left, 9)
  environmentBar.name = 'svc environment'
  environmentBar.command = 'svc.selectEnvironment'
  context.subscriptions.push(statusBar, environmentBar)

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

  // Environments: svc.environments, the active one remembered per workspace.
  const environments = () => readEnvironments(settings().get('environments'), settings().get<string>('baseUrl', 'http://127.0.0.1:8080'))
  const environment = () => activeEnvironment(environments(), context.workspaceState.get<string>(ENVIRONMENT_KEY))
  const showEnvironment = () => {
    const current = environment()
    environmentBar.text = `${current.production ? '$(warning)' : '$(globe)'} ${current.name}`
    environmentBar.tooltip = `svc environment: ${current.baseUrl}${current.production ? ' (production: sending asks first)' : ''}\nClick to change`
    environmentBar.backgroundColor = current.production ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined
    environmentBar.show()
  }
  const confirmEnvironment = async (target: Environment, what: string): Promise<boolean> => {
    if (!target.production) return true
    const go = `Send to ${target.name}`
    const answer = await vscode.window.showWarningMessage(
      `${target.name} is a production environment (${target.baseUrl}): ${what} there for real, with its side effects?`,
      { modal: true },
      go,
    )
    return answer === go
  }
  showEnvironment()

  const routeSource = new RouteSource(client)
  const traceSource = new TraceSource(client, () => ({ limit: settings().get<number>('traces.limit', 100), ignore: settings().get<string[]>('traces.ignore', ['/health/*']) }))
  const pins = new PinnedTraces(context.workspaceState)
  const tokens = new SavedTokens(context.secrets)
  const routesView = vscode.window.createTreeView('svc.routes', { treeDataProvider: new RoutesTreeProvider(routeSource, () => status?.app?.appDir ?? null), showCollapseAll: true })
  const tracesView = vscode.window.createTreeView('svc.traces', { treeDataProvider: new TracesTreeProvider(traceSource, pins), canSelectMany: true })
  context.subscriptions.push(routeSource, traceSource, pins, routesView, tracesView)

  const openTrace = async (id: string) => {
    try {
      return await TraceDetailPanel.show(panelServices, id)
    } catch (error) {
      void vscode.window.showErrorMessage(`svc: ${describeError(error)}`)
      return undefined
    }
  }
  const requestServices: RequestPanelServices = { extensionUri: context.extensionUri, client, tokens, history: context.workspaceState, environments, environment, confirmEnvironment, openTrace }
  const openRouteTraces = async (method: string, route: string) => {
    traceSource.setFilters({ path: pathGlob(route), route, ...(method === 'ANY' ? {} : { method }) })
    await vscode.commands.executeCommand('svc.traces.focus')
  }
  const panelServices: TracePanelServices = {
    extensionUri: context.extensionUri,
    client,
    responses,
    output,
    pins,
    tokens,
    projectRoot: () => status?.app?.root ?? null,
    appDir: () => status?.app?.appDir ?? null,
    routeOf: (method, pattern) => routeSource.routes.find((route) => route.path === pattern && (route.method === method || route.method === 'ANY' || (route.method === 'GET' && method === 'HEAD'))),
    environment,
    confirmEnvironment,
    openRequest: async (request, title) => void RequestPanel.show(requestServices, request, title),
    openRouteHandler: (route) => openRouteHandler(route, status?.app?.appDir ?? null),
    pickTrace: (title, except) => pickTraceFrom(traceSource, title, except),
    compare: (a, b) => compareTraces(client, responses, a, b),
  }

  async function updateStatus(): Promise<void> {
    try {
      status = await client.status()
    } catch (error) {
      if (!client.running) return // not started (no svc): the welcome view says so
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
    const replays = status.replays ? ` (${status.replays} replay${status.replays === 1 ? '' : 's'})` : ''
    const traces = status.traces === null ? 'no traces' : `${status.traces} trace${status.traces === 1 ? '' : 's'}${replays}`
    statusBar.text = status.state === 'error' ? `$(warning) svc: app does not load` : `$(pulse) svc: ${status.routes} routes · ${traces}`
    statusBar.tooltip = status.state === 'error' ? `${status.error?.message ?? ''}${status.error?.hint ? `\nfix: ${status.error.hint}` : ''}` : `svc ${status.version} · ${status.app?.appDir ?? ''}`
    setState('ready')
  }

  const showTraceState = () => {
    tracesView.description = traceSource.describeFilters() || undefined
    setContext('svc.tracesFiltered', traceSource.filtered)
    setContext('svc.tracesLive', traceSource.live)
    setContext('svc.tracesGrouped', traceSource.groupByRoute)
  }
  traceSource.onDidChange(() => {
    showTraceState()
    void updateStatus()
  })
  routeSource.onDidChange(() => void updateStatus())
  context.subscriptions.push(client.onStatusChanged(() => void updateStatus()))
  showTraceState()

  async function start(): Promise<void> {
    setState('starting')
    statusBar.text = '$(sync~spin) svc'
    statusBar.command = 'svc.showOutput'
    try {
      await client.start()
    } catch (error) {
      if (error instanceof CliNotFound) {
        statusBar.text = '$(circle-slash) svc: CLI not found'
        statusBar.tooltip = `Tried:\n${error.tried.join('\n')}\nSet svc.command, or install svc in the workspace.`
        statusBar.command = 'svc.openSettings'
        setState('noCli')
        return
      }
      output.appendLine(`Cannot start the svc language server: ${describeError(error)}`)
      statusBar.text = '$(error) svc: server not running'
      statusBar.tooltip = describeError(error)
      setState('error')
      return
    }
    await updateStatus()
    if (status?.state === 'no_app') return
    await Promise.all([routeSource.refresh(), traceSource.refresh()])
  }

  const pickTrace = async (argument: unknown): Promise<string | undefined> => {
    if (typeof argument === 'string') return argument
    const node = argument as { trace?: TraceSummaryJson } | undefined
    if (node?.trace?.trace_id) return node.trace.trace_id
    return pickTraceFrom(traceSource, 'svc: pick a trace')
  }

  const traceAction = (action: TraceAction) => async (argument?: unknown): Promise<TraceActionResult> => {
    const id = await pickTrace(argument)
    if (id === undefined) return undefined
    const panel = await openTrace(id)
    return panel?.run(action, id)
  }

  const command = (name: string, run: (...args: any[]) => unknown) => context.subscriptions.push(vscode.commands.registerCommand(name, run))

  command('svc.refreshRoutes', async () => {
    // The route files read again: routes, diagnostics, CodeLens and the status bar all follow.
    try {
      routeSource.set((await client.request(SvcRequest.refreshRoutes, {})).routes, null)
    } catch (error) {
      routeSource.set([], error)
    }
  })
  command('svc.refreshTraces', () => traceSource.refresh())
  command('svc.toggleErrorsOnly', () => traceSource.setErrorsOnly(!traceSource.errorsOnly))
  command('svc.clearTraceFilters', () => traceSource.clearFilters())
  command('svc.pauseTraces', () => traceSource.setLive(false))
  command('svc.resumeTraces', () => traceSource.setLive(true))
  command('svc.groupTracesByRoute', () => traceSource.setGroupByRoute(true))
  command('svc.ungroupTraces', () => traceSource.setGroupByRoute(false))
  command('svc.toggleIgnoredTraces', () => traceSource.setShowIgnored(!traceSource.showIgnored))
  command('svc.loadMoreTraces', () => traceSource.loadMore())
  command('svc.typeToFilterTraces', () => typeToFilter(traceSource))
  command('svc.filterTraces', async () => {
    const filters = await askFilters(traceSource.filters)
    if (filters) traceSource.setFilters(filters)
  })
  command('svc.openTrace', async (argument?: unknown) => {
    const id = await pickTrace(argument)
    return id === undefined ? undefined : openTrace(id)
  })
  command('svc.replayTrace', traceAction('replay'))
  command('svc.replayTraceDiff', traceAction('replayDiff'))
  command('svc.replayTraceAs', traceAction('replayAs'))
  command('svc.replayTraceOnServer', traceAction('replayOnServer'))
  command('svc.copyCurl', traceAction('copyCurl'))
  command('svc.createRegressionTest', traceAction('createTest'))
  command('svc.whyTrace', traceAction('why'))
  command('svc.editAndSendTrace', traceAction('editAndSend'))
  command('svc.pinTrace', async (node?: TraceNode) => {
    if (node?.kind === 'trace') await pins.toggle(node.trace)
    else await traceAction('pin')(node)
  })
  command('svc.unpinTrace', async (node?: TraceNode) => {
    if (node?.kind === 'trace' && pins.has(node.trace.trace_id)) await pins.toggle(node.trace)
  })
  command('svc.compareTraces', async (node?: TraceNode, selected?: TraceNode[]) => {
    const ids = [...new Set((selected ?? (node ? [node] : [])).flatMap((entry) => (entry.kind === 'trace' ? [entry.trace.trace_id] : [])))]
    const first = ids[0] ?? (await pickTraceFrom(traceSource, 'svc: compare which trace…'))
    if (first === undefined) return
    const second = ids[1] ?? (await pickTraceFrom(traceSource, 'svc: …with which trace?', first))
    if (second === undefined) return
    try {
      await compareTraces(client, responses, first, second)
    } catch (error) {
      void vscode.window.showErrorMessage(`svc: ${describeError(error)}`)
    }
  })
  command('svc.openDashboard', () => DashboardPanel.show({ extensionUri: context.extensionUri, client, openRouteTraces }))
  command('svc.selectEnvironment', async () => {
    const current = environment()
    const picked = await vscode.window.showQuickPick(
      [
        ...environments().map((entry) => ({ label: `${entry.production ? '$(warning)' : '$(globe)'} ${entry.name}`, description: entry.baseUrl, detail: entry.production ? 'Production: sending asks first' : undefined, environment: entry, picked: entry.name === current.name })),
        { label: '$(gear) Edit environments…', description: 'svc.environments', environment: undefined },
      ],
      { title: 'svc: environment for Send request, Replay on server and Copy as curl' },
    )
    if (picked === undefined) return
    if (picked.environment === undefined) return vscode.commands.executeCommand('workbench.action.openSettings', 'svc.environments')
    await context.workspaceState.update(ENVIRONMENT_KEY, picked.environment.name)
    showEnvironment()
  })
  command('svc.openRouteHandler', (route: RouteJson) => openRouteHandler(route, status?.app?.appDir ?? null))
  command('svc.openRouteTraces', async (route: Pick<RouteJson, 'method' | 'path'> | { route: RouteJson }) => {
    const target = 'route' in route ? route.route : route
    await openRouteTraces(target.method, target.path)
  })
  // From the palette it runs without a route (it threw on `'route' in undefined` and nothing showed): it asks for one.
  command('svc.sendRequest', async (argument?: Pick<RouteJson, 'method' | 'path'> | { route: RouteJson }) => {
    const target = argument === undefined ? await pickRouteFrom(routeSource, 'svc: send a request to which route?') : 'route' in argument ? argument.route : argument
    if (target === undefined) return undefined
    return RequestPanel.show(requestServices, routeRequest(target, environment()), `${target.method} ${target.path}`)
  })
  command('svc.showOutput', () => output.show(true))
  command('svc.openSettings', () => vscode.commands.executeCommand('workbench.action.openSettings', '@ext:svc.svc-vscode'))
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
      if (event.affectsConfiguration('svc.environments', folder.uri) || event.affectsConfiguration('svc.baseUrl', folder.uri)) showEnvironment()
      if (event.affectsConfiguration('svc.traces', folder.uri)) void traceSource.refresh()
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
  RequestPanel.current?.dispose()
  DashboardPanel.current?.dispose()
}

async function pickTraceFrom(source: TraceSource, title: string, except?: string): Promise<string | undefined> {
  if (source.traces.length === 0) await source.refresh()
  const picked = await vscode.window.showQuickPick(
    source.traces.filter((trace) => trace.trace_id !== except).map((trace) => tracePickItem(trace)),
    // Kept open when focus moves: the second pick opens as the first closes, and the focus handed back by the first
    // closed the second now and then (seen in CI). Escape still cancels.
    { title, placeHolder: 'Newest first', matchOnDescription: true, ignoreFocusOut: true },
  )
  return picked?.id
}

/** A route of the table (in match order, as the Routes view lists them), for commands run from the palette. */
async function pickRouteFrom(source: RouteSource, title: string): Promise<RouteJson | undefined> {
  if (source.routes.length === 0) await source.refresh()
  const picked = await vscode.window.showQuickPick(
    source.routes.map((route) => ({ label: `${route.method} ${route.path}`, description: [route.middleware.join(', '), route.handler].filter(Boolean).join(' · '), route })),
    { title, placeHolder: 'Method and path', matchOnDescription: true },
  )
  return picked?.route
}

/** Type-to-filter: the list narrows as each character is typed; Enter keeps the filter, Escape puts the previous one back. */
async function typeToFilter(source: TraceSource): Promise<void> {
  const previous = source.text
  const input = vscode.window.createInputBox()
  input.title = 'svc: filter traces'
  input.placeholder = 'path, status (404, 4xx), method, route, error text… (empty: all)'
  input.value = previous
  let kept = false
  input.onDidChangeValue((value) => source.setText(value))
  input.onDidAccept(() => {
    kept = true
    input.hide()
  })
  input.onDidHide(() => {
    if (!kept) source.setText(previous)
    input.dispose()
  })
  input.show()
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

/** A new request for a route: the environment's URL with the route's path (optional parameters left out), JSON for a body. */
function routeRequest(route: Pick<RouteJson, 'method' | 'path'>, environment: Environment): EditableRequest {
  const method = route.method === 'ANY' ? 'GET' : route.method
  const withBody = ['POST', 'PUT', 'PATCH'].includes(method)
  return {
    method,
    url: `${environment.baseUrl}${route.path.replace(/\/\{[^}]+\?\}/g, '')}`,
    headers: withBody ? [['accept', 'application/json'], ['content-type', 'application/json']] : [['accept', 'application/json']],
    body: withBody ? '{\n  \n}' : '',
  }
}

/** Opens the handler of a route: the language server's definition at the route's source, else the route itself. */
async function openRouteHandler(route: RouteJson, appDir: string | null): Promise<void> {
  if (!route?.source || appDir === null) {
    void vscode.window.showInformationMessage(`svc: ${route?.method} ${route?.path} is built in (no source in this app)`)
    return
  }
  const uri = vscode.Uri.joinPath(vscode.Uri.file(appDir), route.source.file)
  const document = await vscode.workspace.openTextDocument(uri)
  const lineText = route.source.line - 1 < document.lineCount ? document.lineAt(route.source.line - 1).text : ''
  const { line, character } = routeCallPosition(route.source, lineText)
  const position = new vscode.Position(line, character)
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
