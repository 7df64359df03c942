/**
 * Read-only documents for the diff editor (`svc-response:` URIs): the
 * recorded response and the replayed one, as formatted JSON.
 */
import * as vscode from 'vscode'

export class ResponseDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  static readonly scheme = 'svc-response'
  private readonly contents = new Map<string, string>()
  private readonly changed = new vscode.EventEmitter<vscode.Uri>()
  readonly onDidChange = this.changed.event

  /** Stores `value` under `name` and returns its URI (changing it refreshes an open diff). */
  set(name: string, value: unknown): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: ResponseDocuments.scheme, path: `/${name}` })
    this.contents.set(uri.path, `${JSON.stringify(value, null, 2)}\n`)
    this.changed.fire(uri)
    return uri
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.path) ?? ''
  }

  dispose(): void {
    this.changed.dispose()
    this.contents.clear()
  }
}
