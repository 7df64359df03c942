/**
 * A webview panel showing one of the pages (trace detail, request,
 * dashboard): scripts on, the media folder as the only local resource, the
 * page's HTML with a fresh nonce. The panel classes own what they create.
 */
import * as vscode from 'vscode'
import { createNonce, pageHtml } from './page-html.ts'

export interface PageSpec {
  viewType: string
  title: string
  /** media/<script>.js */
  script: string
  /** media/<style>.css, after media/theme.css. */
  style: string
  column?: vscode.ViewColumn
}

export function createPagePanel(extensionUri: vscode.Uri, spec: PageSpec): vscode.WebviewPanel {
  const media = vscode.Uri.joinPath(extensionUri, 'media')
  const panel = vscode.window.createWebviewPanel(spec.viewType, spec.title, spec.column ?? vscode.ViewColumn.Active, {
    enableScripts: true,
    retainContextWhenHidden: true,
    localResourceRoots: [media],
  })
  const webview = panel.webview
  const uri = (file: string) => webview.asWebviewUri(vscode.Uri.joinPath(media, file)).toString()
  webview.html = pageHtml({
    cspSource: webview.cspSource,
    nonce: createNonce(),
    scriptUri: uri(`${spec.script}.js`),
    styleUris: [uri('theme.css'), uri(`${spec.style}.css`)],
    title: spec.title,
    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
  })
  return panel
}
