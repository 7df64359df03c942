/**
 * Opens the trace store on Node: `storage/traces.sqlite` (its own file, so
 * trace writes never contend with the app's database) or any libSQL URL
 * (`TRACE_DATABASE_URL`).
 */
import { existsSync, mkdirSync, statSync } from 'node:fs'
import { dirname } from 'node:path'
import { createClient } from '@libsql/client'
import { DEFAULT_BUSY_TIMEOUT_MS, openLibsqlTraceStore } from '../database/libsql-open.ts'
import type { TraceStore } from '../trace/store.ts'
import { databaseUrl } from './database.ts'
import { traceBatchInsert } from './trace-batch-insert.ts'

export interface OpenTraceStoreOptions {
  url?: string
  authToken?: string
  storageDir: string
  projectDir: string
  /**
   * How long a write waits for another connection's lock (default 5 s). The
   * request thread's writer (`TRACE_WRITER=thread`) passes 0: a wait there
   * would stall every request; its writer tries a locked store again later.
   */
  busyTimeoutMs?: number
  /** A local file's `wal_autocheckpoint` on this connection (0: never after its own commits; see `threadTraceSink`). */
  walAutocheckpoint?: number
  /**
   * false: a local file is opened only if it exists, and neither it nor its
   * folder is created (the commands that only read traces); a missing file
   * throws an error whose `code` is `ENOENT`. Default true.
   */
  create?: boolean
  /**
   * A local file's batch insert prepared once on a connection of its own
   * (`traceBatchInsert`): for the writers that keep the store open
   * (`followTraceStoreFile`), whose every write stalls the request thread.
   */
  preparedBatchInsert?: boolean
}

export const TRACE_DATABASE_FILE = 'traces.sqlite'

export function traceDatabaseUrl(options: OpenTraceStoreOptions): string {
  return databaseUrl(options.url, options, TRACE_DATABASE_FILE)
}

export async function openTraceStore(options: OpenTraceStoreOptions): Promise<TraceStore> {
  const url = traceDatabaseUrl(options)
  const path = url.startsWith('file:') ? url.slice('file:'.length) : undefined
  if (path !== undefined) {
    if (options.create !== false) mkdirSync(dirname(path), { recursive: true })
    else if (!existsSync(path)) throw Object.assign(new Error(`${path} does not exist`), { code: 'ENOENT', path })
  }
  const batchInsert =
    options.preparedBatchInsert === true && path !== undefined
      ? traceBatchInsert({ path, busyTimeoutMs: options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS, walAutocheckpoint: options.walAutocheckpoint })
      : undefined
  return openLibsqlTraceStore(
    createClient,
    { url, authToken: options.authToken, busyTimeoutMs: options.busyTimeoutMs, walAutocheckpoint: options.walAutocheckpoint },
    batchInsert,
  )
}

/**
 * Which file is at `path` now (device and inode); undefined when there is none, or no path (a store on a libSQL
 * server). A reader or writer that keeps a store open compares it with the file it opened: `rm -rf storage/`
 * leaves SQLite on the deleted file, which never changes again.
 */
export function fileIdentity(path: string | null | undefined): string | undefined {
  const stats = path == null ? undefined : statSync(path, { throwIfNoEntry: false })
  return stats === undefined ? undefined : `${stats.dev}:${stats.ino}`
}

/** A store that a long-running writer holds open, opened again when its file is deleted or replaced. */
export interface FollowedTraceStore {
  /** The store at the path, opened again first when the file there is no longer the one it has open. */
  current(): Promise<TraceStore>
  close(): void
}

/**
 * Opens the store for a writer that keeps it open (`svc serve`'s sinks). A
 * local file deleted under it (`rm -rf storage/` to start afresh) is opened
 * again, created at its path, at the next write: SQLite would go on writing
 * into the deleted file, every later trace lost while `/health/ready`
 * counted it written. One `stat` a call, a call a batch. A local file's
 * batch insert is prepared once, on a connection of its own
 * (`preparedBatchInsert`).
 */
export async function followTraceStoreFile(followed: OpenTraceStoreOptions): Promise<FollowedTraceStore> {
  const options = { ...followed, preparedBatchInsert: true }
  const url = traceDatabaseUrl(options)
  const path = url.startsWith('file:') ? url.slice('file:'.length) : undefined
  let store = await openTraceStore(options)
  let opened = fileIdentity(path)
  // Calls that overlap (a write and a prune) wait for the same reopening.
  let reopening: Promise<TraceStore> | undefined
  const reopen = async () => {
    store.close()
    store = await openTraceStore(options)
    opened = fileIdentity(path)
    return store
  }
  return {
    current() {
      if (reopening !== undefined) return reopening
      if (path === undefined || fileIdentity(path) === opened) return Promise.resolve(store)
      reopening = reopen().finally(() => (reopening = undefined))
      return reopening
    },
    close: () => store.close(),
  }
}
