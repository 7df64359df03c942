/**
 * Watches the app's source folders for `svc live`.
 *
 * One non-recursive `fs.watch` per directory, not Node's recursive mode: on
 * Linux, Node 20's recursive watcher watches each file, and a file replaced
 * by a rename (`sed -i`, formatters, `git checkout`) is never reported again.
 * A directory's own watch sees every create, write and rename of its
 * entries however the file is replaced. New directories are watched as they
 * appear; removed ones are dropped.
 */
import { existsSync, readdirSync, statSync, watch, type FSWatcher } from 'node:fs'
import { basename, join, relative, sep } from 'node:path'

export interface WatchTarget {
  /** A directory watched with everything below it (routes/, app/, config/, database/migrations/). */
  dir: string
  /** Only these names directly in `dir`, and nothing below it (the project root: `.env`). */
  only?: readonly string[]
}

export interface SourceWatcher {
  /** Directories watched now. */
  readonly directories: () => string[]
  close(): void
}

/** Source files that change what the server runs; editors' temporary files (`.swp`, `~`, `sedXXXXXX`) are not. */
const SOURCE_FILE = /\.(ts|mts|cts|js|mjs|cjs|json|sql)$/
const SKIPPED_DIRECTORY = new Set(['node_modules', 'storage', '.git', 'dist', 'coverage'])

export function isWatchedSource(name: string): boolean {
  return SOURCE_FILE.test(name) && !name.startsWith('.') && !/\.(db|sqlite)(-wal|-shm|-journal)?$/.test(name)
}

export function watchSources(targets: readonly WatchTarget[], onChange: (file: string) => void): SourceWatcher {
  const watchers = new Map<string, FSWatcher>()
  let closed = false

  const add = (dir: string, only: readonly string[] | undefined) => {
    if (closed || watchers.has(dir) || !isDirectory(dir)) return
    let watcher: FSWatcher
    try {
      watcher = watch(dir, { persistent: true }, (_event, name) => {
        if (name === null) return
        const file = join(dir, name.toString())
        if (only !== undefined) {
          if (only.includes(basename(file))) onChange(file)
          return
        }
        if (isDirectory(file)) {
          if (!SKIPPED_DIRECTORY.has(basename(file))) addTree(file)
          return
        }
        if (watchers.has(file) && !existsSync(file)) return drop(file)
        if (isWatchedSource(basename(file))) onChange(file)
      })
    } catch {
      return // gone between the check and the watch
    }
    // A directory removed under its watcher: forget it (its parent reports the removal too).
    watcher.on('error', () => drop(dir))
    watchers.set(dir, watcher)
  }

  const addTree = (dir: string) => {
    add(dir, undefined)
    let entries: string[] = []
    try {
      entries = readdirSync(dir, { withFileTypes: true })
        .filter((entry) => entry.isDirectory() && !SKIPPED_DIRECTORY.has(entry.name) && !entry.name.startsWith('.'))
        .map((entry) => join(dir, entry.name))
    } catch {
      return
    }
    for (const child of entries) addTree(child)
  }

  const drop = (dir: string) => {
    for (const [path, watcher] of watchers) {
      if (path === dir || path.startsWith(`${dir}${sep}`)) {
        watcher.close()
        watchers.delete(path)
      }
    }
  }

  for (const target of targets) {
    if (target.only !== undefined) add(target.dir, target.only)
    else addTree(target.dir)
  }

  return {
    directories: () => [...watchers.keys()].sort(),
    close() {
      closed = true
      for (const watcher of watchers.values()) watcher.close()
      watchers.clear()
    },
  }
}

/**
 * Calls `run` once changes have settled for `ms` (an editor's save is
 * several events; a `git checkout` is many files), with the files changed
 * and when the first of them was seen (`performance.now()`).
 */
export function debounce(ms: number, run: (files: string[], firstSeen: number) => void): { add(file: string): void; cancel(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined
  let files: string[] = []
  let firstSeen = 0
  return {
    add(file) {
      if (files.length === 0) firstSeen = performance.now()
      if (!files.includes(file)) files.push(file)
      clearTimeout(timer)
      timer = setTimeout(() => {
        const changed = files
        files = []
        run(changed, firstSeen)
      }, ms)
    },
    cancel() {
      clearTimeout(timer)
      files = []
    },
  }
}

/** `routes/api.ts`, `.env`: a changed file as the user would name it. */
export function displayPath(root: string, file: string): string {
  return relative(root, file).split(sep).join('/')
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}
