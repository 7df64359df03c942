/**
 * Watching the app's source folders (`routes/`, `app/`) when the editor does
 * not watch them for the server (an LSP client without dynamic registration
 * of `workspace/didChangeWatchedFiles`; VS Code does it with its own file
 * watcher, see server.ts).
 *
 * Node 20's recursive `fs.watch` on Linux watches each file, and a file
 * replaced by a rename (`sed -i`, formatters, `git checkout`) is not watched
 * any more: later edits went unseen. Here every folder is watched on its own,
 * not recursively (the folder's watch sees a replaced file as a new entry),
 * and the folder list is read again after each rename.
 */
import { existsSync, readdirSync, watch, type FSWatcher } from 'node:fs'
import { join } from 'node:path'

export class SourceWatch {
  private readonly watchers = new Map<string, FSWatcher>()
  private closed = false

  constructor(
    private readonly roots: string[],
    private readonly onChange: (file: string) => void,
  ) {
    this.rescan()
  }

  close(): void {
    this.closed = true
    for (const watcher of this.watchers.values()) watcher.close()
    this.watchers.clear()
  }

  /** Watches every folder under the roots that is not watched yet, and forgets those that are gone. */
  private rescan(): void {
    if (this.closed) return
    const folders = new Set(this.roots.filter((root) => existsSync(root)).flatMap(foldersUnder))
    for (const [folder, watcher] of this.watchers) {
      if (!folders.has(folder)) {
        watcher.close()
        this.watchers.delete(folder)
      }
    }
    for (const folder of folders) {
      if (this.watchers.has(folder)) continue
      try {
        const watcher = watch(folder, (event, name) => {
          if (event === 'rename') this.rescan()
          this.onChange(name === null ? folder : join(folder, String(name)))
        })
        watcher.on('error', () => {
          watcher.close()
          this.watchers.delete(folder)
        })
        this.watchers.set(folder, watcher)
      } catch {
        // removed meanwhile: the next rescan forgets it
      }
    }
  }
}

function foldersUnder(root: string): string[] {
  const folders = [root]
  try {
    for (const entry of readdirSync(root, { withFileTypes: true })) {
      if (entry.isDirectory() && entry.name !== 'node_modules' && !entry.name.startsWith('.')) folders.push(...foldersUnder(join(root, entry.name)))
    }
  } catch {
    // gone meanwhile
  }
  return folders
}
