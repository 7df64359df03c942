/**
 * Opens the app's libSQL database on Node: a local SQLite file by default
 * (created on first use, WAL mode), or a `libsql://` / `http(s)://` server.
 */
import { mkdirSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { createClient, type Client } from '@libsql/client'
import { createDatabase, type Database } from '../database/database.ts'

export interface OpenDatabaseOptions {
  /** `file:...`, `libsql://...`, `http(s)://...`; default `file:<storageDir>/database.sqlite`. */
  url?: string
  authToken?: string
  storageDir: string
  /** Relative `file:` paths resolve against this folder (the project's). */
  projectDir: string
  /**
   * How long a writer waits for another connection's lock. Without a busy
   * timeout, concurrent writers from two processes lose rows with this driver.
   */
  busyTimeoutMs?: number
  /** Page size in bytes of a database file created now (an existing file keeps its own); SQLite's default is 4096. */
  pageSize?: number
}

export const DEFAULT_BUSY_TIMEOUT_MS = 5000

export function databaseUrl(
  url: string | undefined,
  dirs: { storageDir: string; projectDir: string },
  fileName = 'database.sqlite',
): string {
  if (url === undefined || url === '') return `file:${resolve(dirs.storageDir, fileName)}`
  if (!url.startsWith('file:')) return url
  return `file:${resolve(dirs.projectDir, url.slice('file:'.length))}`
}

export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  const url = databaseUrl(options.url, options)
  const isFile = url.startsWith('file:')
  if (isFile) mkdirSync(dirname(url.slice('file:'.length)), { recursive: true })
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS
  const connect = async (pageSize?: number): Promise<Client> => {
    const client = createClient({ url, authToken: options.authToken, timeout: busyTimeoutMs, intMode: 'number' })
    if (isFile) {
      // Only possible before WAL mode writes the file's header.
      if (pageSize !== undefined) await client.execute(`pragma page_size = ${Math.trunc(pageSize)}`)
      await client.execute('pragma journal_mode = wal')
      await client.execute('pragma foreign_keys = on')
    }
    return client
  }
  // A local file's connection is replaced after SQLITE_BUSY (see DatabaseOptions.reopen).
  return createDatabase(await connect(options.pageSize), { lockWaitMs: busyTimeoutMs, ...(isFile ? { reopen: () => connect() } : {}) })
}
