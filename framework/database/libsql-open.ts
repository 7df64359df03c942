/**
 * Opening a libSQL database, the same on every runtime whose adapter brings
 * a libSQL client (Node, Deno, Bun): the client is passed in, so this module
 * imports no driver. A local file gets WAL mode and foreign keys; a trace
 * store gets 16 KiB pages and `synchronous = normal`. A local file's
 * connection is replaced after a write refused for a lock (DatabaseOptions.reopen).
 */
import type { Client, Config } from '@libsql/client'
import { TraceStore, type PreparedBatchInsert } from '../trace/store.ts'
import { createDatabase, type Database } from './database.ts'

export type CreateLibsqlClient = (config: Config) => Client

export interface LibsqlOpenOptions {
  /** `file:/absolute/path`, `libsql://...`, `http(s)://...`. */
  url: string
  authToken?: string
  /** How long a writer waits for another connection's lock (default 5 s). */
  busyTimeoutMs?: number
  /** Page size in bytes of a database file created now (an existing file keeps its own). */
  pageSize?: number
  /** A local file's `synchronous` setting, per connection (SQLite's default: full). */
  synchronous?: 'normal' | 'full'
  /**
   * A local file's `wal_autocheckpoint`, per connection (SQLite's default:
   * 1000 pages); 0: this connection never checkpoints after its commits
   * (another one does: see `threadTraceSink` in svc/node).
   */
  walAutocheckpoint?: number
}

export const DEFAULT_BUSY_TIMEOUT_MS = 5000
/** Each trace write is one batch row of tens of kilobytes: on 16 KiB pages it costs about a third less CPU than on SQLite's 4 KiB (docs/traces.md). */
export const TRACE_PAGE_SIZE = 16_384

export async function openLibsqlDatabase(createClient: CreateLibsqlClient, options: LibsqlOpenOptions): Promise<Database> {
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS
  const isFile = options.url.startsWith('file:')
  const connect = async (pageSize?: number): Promise<Client> => {
    const client = createClient({ url: options.url, authToken: options.authToken, timeout: busyTimeoutMs, intMode: 'number' })
    if (isFile) {
      // Only possible before WAL mode writes the file's header.
      if (pageSize !== undefined) await client.execute(`pragma page_size = ${Math.trunc(pageSize)}`)
      await client.execute('pragma journal_mode = wal')
      await client.execute('pragma foreign_keys = on')
      if (options.synchronous !== undefined) await client.execute(`pragma synchronous = ${options.synchronous}`)
      if (options.walAutocheckpoint !== undefined) await client.execute(`pragma wal_autocheckpoint = ${Math.trunc(options.walAutocheckpoint)}`)
    }
    return client
  }
  // A local file's connection is replaced after SQLITE_BUSY (see DatabaseOptions.reopen).
  return createDatabase(await connect(options.pageSize), { lockWaitMs: busyTimeoutMs, ...(isFile ? { reopen: () => connect() } : {}) })
}

/**
 * The trace store on a libSQL database of its own, tables created; its batch
 * insert on `batchInsert`'s connection when the runtime's adapter prepares one.
 */
export async function openLibsqlTraceStore(createClient: CreateLibsqlClient, options: LibsqlOpenOptions, batchInsert?: PreparedBatchInsert): Promise<TraceStore> {
  // Traces are a diagnostic log: a power cut may lose the last batch, never corrupt the file.
  const store = new TraceStore(await openLibsqlDatabase(createClient, { pageSize: TRACE_PAGE_SIZE, synchronous: 'normal', ...options }), batchInsert)
  await store.init()
  return store
}

export interface LibsqlOpeners {
  /** The app's libSQL database: a local file (its folder created) or a server URL. */
  openDatabase(options: LibsqlOpenOptions): Promise<Database>
  /** The trace store in a libSQL database of its own (`svc trace:list` reads the same file). */
  openTraceStore(options: LibsqlOpenOptions): Promise<TraceStore>
}

/** `openDatabase` and `openTraceStore` for a runtime adapter: its libSQL client, and how it creates a folder. */
export function libsqlOpeners(createClient: CreateLibsqlClient, makeFolder: (folder: string) => Promise<void>): LibsqlOpeners {
  const folderOf = async (url: string) => {
    if (!url.startsWith('file:')) return
    const folder = url.slice('file:'.length).replace(/[/\\][^/\\]*$/, '')
    if (folder !== '') await makeFolder(folder)
  }
  return {
    openDatabase: async (options) => {
      await folderOf(options.url)
      return openLibsqlDatabase(createClient, options)
    },
    openTraceStore: async (options) => {
      await folderOf(options.url)
      return openLibsqlTraceStore(createClient, options)
    },
  }
}
