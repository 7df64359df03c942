/**
 * Opens the app's libSQL database on Node: a local SQLite file by default
 * (created on first use, WAL mode), or a `libsql://` / `http(s)://` server.
 */
import { mkdirSync, statSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { createClient } from '@libsql/client'
import type { Database } from '../database/database.ts'
import { DEFAULT_BUSY_TIMEOUT_MS, openLibsqlDatabase } from '../database/libsql-open.ts'

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

export { DEFAULT_BUSY_TIMEOUT_MS }

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
  if (url.startsWith('file:')) {
    const path = url.slice('file:'.length)
    refuseFolder(path)
    mkdirSync(dirname(path), { recursive: true })
  }
  return openLibsqlDatabase(createClient, { ...options, url })
}

/**
 * `file:` with no path, or a folder's path (`file:storage`), names the folder itself: the driver says only
 * `ConnectionFailed("Unable to open connection to local database /app/storage: 14")`.
 */
function refuseFolder(path: string): void {
  if (!statSync(path, { throwIfNoEntry: false })?.isDirectory()) return
  throw new Error(`${path} is a folder, not a database file: a file: URL names the file (file:storage/database.sqlite)`)
}
