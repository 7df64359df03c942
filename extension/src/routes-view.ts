/**
 * The Routes view. `RouteSource` gets the routes (`route:list --json` through
 * the language server) and says when they change; `RoutesTreeProvider` only
 * shows them, grouped by prefix and version, in match order.
 */
import * as vscode from 'vscode'
import { SvcRequest } from '../../cli/contract/lsp.ts'
import type { RouteJson } from '../../cli/contract/routes.ts'
import { groupRoutes, type RouteGroup } from './route-groups.ts'
import type { SvcClient } from './svc-client.ts'
import { describeError, SvcError } from './svc-error.ts'

export class RouteSource implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>()
  readonly onDidChange = this.changed.event
  routes: RouteJson[] = []
  /** Why there are none, as the views word an error (the CLI's message and its fix). */
  error: string | null = null
  /** The CLI's code of that error (`E_APP_LOAD`), null for another failure. */
  errorCode: string | null = null
  private readonly subscription: vscode.Disposable

  constructor(private readonly client: SvcClient) {
    this.subscription = client.onRoutesChanged(() => void this.refresh())
  }

  async refresh(): Promise<void> {
    try {
      this.set((await this.client.request(SvcRequest.routes, {})).routes, null)
    } catch (error) {
      this.set([], error)
    }
  }

  /** Routes got another way ("Refresh Routes" asks the server to read the files again), or the error that there are none. */
  set(routes: RouteJson[], error: unknown): void {
    this.routes = routes
    this.error = error === null ? null : describeError(error)
    this.errorCode = error instanceof SvcError ? error.code : null
    this.changed.fire()
  }

  dispose(): void {
    this.subscription.dispose()
    this.changed.dispose()
  }
}

type RouteNode = { kind: 'group'; group: RouteGroup } | { kind: 'route'; route: RouteJson } | { kind: 'error'; message: string; code: string | null }

export class RoutesTreeProvider implements vscode.TreeDataProvider<RouteNode> {
  private readonly changed = new vscode.EventEmitter<RouteNode | undefined>()
  readonly onDidChangeTreeData = this.changed.event

  constructor(
    private readonly source: RouteSource,
    private readonly appDir: () => string | null,
  ) {
    source.onDidChange(() => this.changed.fire(undefined))
  }

  getChildren(node?: RouteNode): RouteNode[] {
    if (node === undefined) {
      if (this.source.error !== null) return [{ kind: 'error', message: this.source.error, code: this.source.errorCode }]
      return groupRoutes(this.source.routes).map((group) => ({ kind: 'group', group }))
    }
    return node.kind === 'group' ? node.group.routes.map((route) => ({ kind: 'route', route })) : []
  }

  getTreeItem(node: RouteNode): vscode.TreeItem {
    if (node.kind === 'error') {
      const item = new vscode.TreeItem(node.message, vscode.TreeItemCollapsibleState.None)
      item.iconPath = new vscode.ThemeIcon('error', new vscode.ThemeColor('errorForeground'))
      item.tooltip = node.message
      // The row is one truncated line in a side bar: a click goes to the whole of it. An app that does not load has
      // a diagnostic at the line that failed (the language server's app-load-error), so the Problems panel links it.
      item.command =
        node.code === 'E_APP_LOAD' ? { command: 'workbench.actions.view.problems', title: 'Show Problems' } : { command: 'svc.showOutput', title: 'Show Output' }
      return item
    }
    if (node.kind === 'group') {
      const item = new vscode.TreeItem(node.group.label, vscode.TreeItemCollapsibleState.Expanded)
      item.description = `${node.group.routes.length} route${node.group.routes.length === 1 ? '' : 's'}`
      item.iconPath = new vscode.ThemeIcon('folder')
      item.contextValue = 'routeGroup'
      return item
    }
    const route = node.route
    const item = new vscode.TreeItem(`${route.method} ${route.path}`, vscode.TreeItemCollapsibleState.None)
    item.id = `${route.method} ${route.path}`
    item.description = [route.middleware.join(', '), route.handler].filter(Boolean).join(' · ')
    item.iconPath = new vscode.ThemeIcon('symbol-method', new vscode.ThemeColor(methodColor(route.method)))
    item.contextValue = 'route'
    const tooltip = new vscode.MarkdownString()
    tooltip.appendMarkdown(`**${route.method}** \`${route.path}\`\n\n`)
    for (const param of route.params) tooltip.appendMarkdown(`- \`{${param.name}}\`${param.optional ? ' (optional)' : ''}${param.pattern ? `: \`${param.pattern}\`` : ''}\n`)
    tooltip.appendMarkdown(`\nMiddleware: ${route.middleware.map((name) => `\`${name}\``).join(' → ') || 'none'}\n\nHandler: \`${route.handler}\``)
    const appDir = this.appDir()
    if (route.source && appDir) tooltip.appendMarkdown(`\n\nDefined in ${route.source.file}:${route.source.line}`)
    item.tooltip = tooltip
    item.command = { command: 'svc.openRouteHandler', title: 'Open Route Handler', arguments: [route] }
    return item
  }
}

function methodColor(method: string): string {
  switch (method) {
    case 'GET':
      return 'charts.blue'
    case 'POST':
      return 'charts.green'
    case 'PUT':
    case 'PATCH':
      return 'charts.orange'
    case 'DELETE':
      return 'charts.red'
    default:
      return 'charts.purple'
  }
}
