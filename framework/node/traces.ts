/**
 * Opens the trace store on Node: `storage/traces.sqlite` (its own file, so
 * trace writes never contend with the app's database) or any libSQL URL
 * (`TRACE_DATABASE_URL`).
 */
import { existsSync, mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { createClient } from '@libsql/client'
import { openLibsqlTraceStore } from '../database/libsql-open.ts'
import type { TraceStore } from '../trace/store.ts'
import { databaseUrl } from './database.ts'

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
}

export const TRACE_DATABASE_FILE = 'traces.sqlite'

export function traceDatabaseUrl(options: OpenTraceStoreOptions): string {
  return databaseUrl(options.url, options, TRACE_DATABASE_FILE)
}

export async function openTraceStore(options: OpenTraceStoreOptions): Promise<TraceStore> {
  const url = traceDatabaseUrl(options)
  if (url.startsWith('file:')) {
    const path = url.slice('file:'.length)
    if (options.create !== false) mkdirSync(dirname(path), { recursive: true })
    else if (!existsSync(path)) throw Object.assign(new Error(`${path} does not exist`), { code: 'ENOENT', path })
  }
  return openLibsqlTraceStore(createClient, {
    url,
    authToken: options.authToken,
    busyTimeoutMs: options.busyTimeoutMs,
    walAutocheckpoint: options.walAutocheckpoint,
  })
}
