/**
 * The part of the `vscode` module the tree views use, as plain classes that
 * keep what the code set on them: what `vi.mock('vscode', ...)` gives the view
 * tests (routes-view, traces-source), which run outside VS Code.
 */
class EventEmitter<T> {
  private listeners: Array<(value: T) => void> = []
  readonly event = (listener: (value: T) => void) => {
    this.listeners.push(listener)
    return { dispose: () => undefined }
  }
  fire(value: T): void {
    for (const listener of this.listeners) listener(value)
  }
  dispose(): void {}
}

class TreeItem {
  description?: string
  tooltip?: unknown
  command?: unknown
  constructor(readonly label: unknown) {}
}

class MarkdownString {
  constructor(readonly value: string) {}
}

class ThemeIcon {
  constructor(readonly id: string) {}
}

class ThemeColor {
  constructor(readonly id: string) {}
}

export const vscodeTreeFake = { EventEmitter, TreeItem, MarkdownString, ThemeIcon, ThemeColor, TreeItemCollapsibleState: { None: 0, Collapsed: 1, Expanded: 2 } }
