/**
 * Opens the trace store on Node: `storage/traces.sqlite` (its own file, so
 * trace writes never contend with the app's database) or any libSQL URL
 * (`TRACE_DATABASE_URL`).
 */
import { databaseUrl, openDatabase } from './database.ts'
import { TraceStore } from '../trace/store.ts'

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
}

export const TRACE_DATABASE_FILE = 'traces.sqlite'
/** Each write is one batch row of tens of kilobytes: on 16 KiB pages it costs about a third less CPU than on SQLite's 4 KiB (docs/traces.md). */
const TRACE_PAGE_SIZE = 16_384

export function traceDatabaseUrl(options: OpenTraceStoreOptions): string {
  return databaseUrl(options.url, options, TRACE_DATABASE_FILE)
}

export async function openTraceStore(options: OpenTraceStoreOptions): Promise<TraceStore> {
  const url = traceDatabaseUrl(options)
  const connect = async () => {
    const db = await openDatabase({
      url,
      authToken: options.authToken,
      storageDir: options.storageDir,
      projectDir: options.projectDir,
      pageSize: TRACE_PAGE_SIZE,
      ...(options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.busyTimeoutMs }),
    })
    // Traces are a diagnostic log: a power cut may lose the last batch, never corrupt the file.
    if (url.startsWith('file:')) await db.execute('pragma synchronous = normal')
    return db
  }
  // A local file's connection is replaced after a write refused for a lock (see TraceStoreOptions.reopen).
  const store = new TraceStore(await connect(), url.startsWith('file:') ? { reopen: connect } : {})
  await store.init()
  return store
}
