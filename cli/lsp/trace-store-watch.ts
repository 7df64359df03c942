/**
 * How the language server knows that new traces were written: it asks the
 * trace store itself, in process, never through file events. A read-only
 * `trace:list` touches `traces.sqlite-wal`/`-shm` too, and refreshing on file
 * events made the editor refresh itself for ever (two CLI processes a second
 * with no traffic).
 *
 * Every `intervalMs` it reads `PRAGMA data_version` (a counter SQLite changes
 * only when another connection commits: no I/O); when that moved, the store's
 * last batch id and trace count; when those moved, `onChange` runs, at most
 * once per tick. A local store that does not exist yet is not created: the
 * file is looked for on each tick. A local store deleted or replaced
 * (`rm -rf storage/`) is a change, and the file there is opened again.
 */
import { existsSync } from 'node:fs'
import { traceDatabaseUrl } from '../../framework/node/index.ts'
import { fileIdentity } from '../../framework/node/traces.ts'
import type { TraceStore } from '../../framework/trace/index.ts'
import { loadConfig } from '../project/load-app.ts'
import type { Project } from '../project/project.ts'
import { openProjectTraceStore, projectTraceConfig } from '../trace/open-store.ts'

export interface TraceStoreWatchOptions {
  /** Between two looks at a local store (default 1000). A remote store (libsql://) is asked at most every 5 s. */
  intervalMs?: number
}

export class TraceStoreWatch {
  private store: TraceStore | undefined
  private opening: Promise<void> | undefined
  private version: unknown
  /** `<last batch id>:<traces>` when last read, undefined before the first read. */
  private mark: string | undefined
  private timer: NodeJS.Timeout | undefined
  private busy = false
  private closed = false
  private readonly remote: boolean
  private readonly file: string | undefined
  /** The file the open store reads (device and inode). */
  private opened: string | undefined

  constructor(
    private readonly project: Project,
    private readonly onChange: () => Promise<void> | void,
    private readonly options: TraceStoreWatchOptions = {},
  ) {
    const url = traceDatabaseUrl({ url: projectTraceConfig(project, loadConfig(project)).databaseUrl, storageDir: project.storageDir, projectDir: project.root })
    this.remote = !url.startsWith('file:')
    this.file = this.remote ? undefined : url.slice('file:'.length)
  }

  /** Reads the current mark (so that only later writes count as changes) and starts looking. */
  async start(): Promise<void> {
    await this.check(false)
    const interval = this.remote ? Math.max(5000, this.options.intervalMs ?? 1000) : (this.options.intervalMs ?? 1000)
    this.timer = setInterval(() => void this.check(true), interval)
  }

  close(): void {
    this.closed = true
    if (this.timer) clearInterval(this.timer)
    this.store?.close()
    this.store = undefined
  }

  /** One look: true when the store has new (or fewer) traces since the last. */
  async check(notify = true): Promise<boolean> {
    if (this.busy || this.closed) return false
    this.busy = true
    try {
      if (this.store !== undefined && !this.remote && fileIdentity(this.file) !== this.opened) {
        // Deleted or replaced (rm -rf storage/): the deleted file never changes again. Whatever is there now differs.
        this.store.close()
        this.store = undefined
        this.version = undefined
        this.mark = 'replaced'
      }
      const store = await this.open()
      if (store === undefined) {
        const gone = this.mark !== undefined && this.mark !== '0:0'
        this.mark = '0:0' // no store (yet, or any more): its first traces are a change
        if (gone && notify) await this.onChange()
        return gone
      }
      const version = (await store.db.execute('pragma data_version')).rows[0]?.[0]
      if (version === this.version && this.mark !== undefined) return false
      this.version = version
      const mark = await markOf(store)
      if (mark === this.mark) return false
      const first = this.mark === undefined
      this.mark = mark
      if (!first && notify) await this.onChange()
      return !first
    } catch {
      // A store being created or migrated by another process: the next tick asks again.
      return false
    } finally {
      this.busy = false
    }
  }

  private async open(): Promise<TraceStore | undefined> {
    if (this.store !== undefined) return this.store
    if (!this.remote && this.file !== undefined && !existsSync(this.file)) return undefined
    this.opening ??= openProjectTraceStore(this.project)
      .then((store) => {
        if (this.closed) store.close()
        else [this.store, this.opened] = [store, fileIdentity(this.file)]
      })
      .finally(() => (this.opening = undefined))
    await this.opening
    return this.store
  }
}

async function markOf(store: TraceStore): Promise<string> {
  try {
    const row = (await store.db.execute('select coalesce(max(id), 0) as last, coalesce(sum(count), 0) as traces from svc_trace_batches')).rows[0]
    return `${row?.last ?? 0}:${row?.traces ?? 0}`
  } catch {
    return '0:0' // no table yet
  }
}
