/**
 * The dashboard: `log:stats` and `log:top` (through the language server) in
 * one page, with a chart of p50/p95 over time and the error rate per route,
 * drawn by the page as SVG (no chart library, nothing remote: the page's CSP
 * stays strict). Refreshed when new traces are written.
 */
import * as vscode from 'vscode'
import { SvcRequest } from '../../cli/contract/lsp.ts'
import { isDashboardWebviewMessage, type DashboardPanelMessage } from './messages.ts'
import { createPagePanel } from './page-panel.ts'
import type { SvcClient } from './svc-client.ts'
import { describeError } from './svc-error.ts'

export interface DashboardServices {
  extensionUri: vscode.Uri
  client: SvcClient
  openRouteTraces: (method: string, route: string) => Promise<unknown>
}

export class DashboardPanel implements vscode.Disposable {
  static readonly viewType = 'svc.dashboard'
  static current: DashboardPanel | undefined

  private readonly disposables: vscode.Disposable[] = []
  private days = 7
  private ready = false

  static show(services: DashboardServices): DashboardPanel {
    if (DashboardPanel.current) {
      DashboardPanel.current.panel.reveal()
      void DashboardPanel.current.refresh()
      return DashboardPanel.current
    }
    const panel = createPagePanel(services.extensionUri, { viewType: DashboardPanel.viewType, title: 'svc: Dashboard', script: 'dashboard', style: 'dashboard' })
    DashboardPanel.current = new DashboardPanel(panel, services)
    return DashboardPanel.current
  }

  private constructor(
    readonly panel: vscode.WebviewPanel,
    private readonly services: DashboardServices,
  ) {
    panel.onDidDispose(() => this.dispose(), null, this.disposables)
    panel.webview.onDidReceiveMessage((message: unknown) => void this.receive(message), null, this.disposables)
    services.client.onTracesChanged(() => void this.refresh(), null, this.disposables)
  }

  private post(message: DashboardPanelMessage): void {
    void this.panel.webview.postMessage(message)
  }

  private async receive(message: unknown): Promise<void> {
    if (!isDashboardWebviewMessage(message)) return
    if (message.type === 'openRoute') {
      await this.services.openRouteTraces(message.method, message.route)
      return
    }
    if (message.type === 'refresh') this.days = message.days
    else this.ready = true
    await this.refresh()
  }

  async refresh(): Promise<void> {
    if (!this.ready) return
    this.post({ type: 'busy' })
    try {
      const [stats, top] = await Promise.all([
        this.services.client.request(SvcRequest.stats, { days: this.days }),
        this.services.client.request(SvcRequest.top, { days: this.days, limit: 10 }),
      ])
      this.post({ type: 'data', stats, top })
    } catch (error) {
      this.post({ type: 'error', message: describeError(error) })
    }
  }

  dispose(): void {
    if (DashboardPanel.current === this) DashboardPanel.current = undefined
    this.panel.dispose()
    while (this.disposables.length > 0) this.disposables.pop()?.dispose()
  }
}
