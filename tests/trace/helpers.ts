/** Builders for the trace tests: a traced app over a temporary trace store. */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'vitest'
import { createApp, TRACE_HEADER, type AppOptions, type EnvRecord } from 'svc'
import { createTracer, resolveTraceConfig, storeSink, type RawTrace, type SvcTracer, type TraceConfig, type TraceRecord, type TraceSink, type TraceStore } from 'svc/trace'
import { openDatabase, openTraceStore } from 'svc/node'
import { tempDir, testConfig } from '../helpers/app.ts'

export interface TracedApp {
  app: ReturnType<typeof createApp>
  tracer: SvcTracer
  store: TraceStore
  dir: string
  tracePath: string
  close(): Promise<void>
}

/** An app with its own database and trace store in a temp folder. */
export async function tracedApp(
  options: Omit<AppOptions, 'tracer' | 'database'> & { traceVars?: EnvRecord; vars?: EnvRecord; sink?: (inner: TraceSink, config: TraceConfig) => TraceSink } = {},
): Promise<TracedApp> {
  const dir = tempDir('svc-trace-')
  const database = await openDatabase({ storageDir: dir.path, projectDir: dir.path })
  const store = await openTraceStore({ storageDir: dir.path, projectDir: dir.path })
  const config = testConfig({ ...options.vars })
  const traceConfig = resolveTraceConfig({ TRACE_FLUSH_MS: '5', ...options.traceVars })
  const sink = storeSink(store)
  const tracer = createTracer({ sink: options.sink ? options.sink(sink, traceConfig) : sink, config: traceConfig })
  const { traceVars: _traceVars, vars: _vars, sink: _sink, ...appOptions } = options
  const app = createApp({ config, ...appOptions, database, tracer, plugins: [...(appOptions.plugins ?? []), tracer.plugin] })
  return {
    app,
    tracer,
    store,
    dir: dir.path,
    tracePath: join(dir.path, 'traces.sqlite'),
    async close() {
      await tracer.close()
      store.close()
      database.close()
      dir.remove()
    },
  }
}

export function request(method: string, path: string, init: { json?: unknown; headers?: Record<string, string>; body?: string } = {}): Request {
  const headers = new Headers(init.headers)
  let body = init.body
  if (init.json !== undefined) {
    body = JSON.stringify(init.json)
    headers.set('content-type', 'application/json')
  }
  return new Request(`http://localhost${path}`, { method, headers, body })
}

/** A captured GET answered 200 with a small JSON body, as the writer receives it; trace id `svc_` + n padded to 32 digits. */
export function rawTrace(n: number, overrides: Partial<RawTrace> = {}): RawTrace {
  return {
    trace_id: `svc_${String(n).padStart(32, '0')}`,
    method: 'GET',
    path: '/api/me',
    search: '',
    route: '/api/me',
    ip: '127.0.0.1',
    user_id: null,
    started_epoch: 1_700_000_000_000 + n * 7,
    started_at: 5000 + n * 7,
    duration_ms: 1,
    status: 200,
    debug: false,
    request_headers: { host: 'localhost' },
    request_type: null,
    request_body: { kind: 'none' },
    response_headers: { 'Content-Type': 'application/json' },
    response_type: 'application/json',
    response_body: { text: '{"ok":true}', size: 11, truncated: false },
    queries: [],
    middleware: [],
    events: [],
    events_omitted: 0,
    error: null,
    refused_before_app: false,
    ...overrides,
  }
}

/** Flushes, then the stored record of a response's trace (which must exist). */
export async function recordOf(t: TracedApp, response: Response): Promise<TraceRecord> {
  await t.tracer.flush()
  const id = response.headers.get(TRACE_HEADER)!
  const record = await t.store.get(id)
  expect(record, `trace ${id} stored`).toBeDefined()
  return record!
}

/** Every byte the trace store wrote in `dir`: the database file and its WAL. */
export function storageBytes(dir: string): string {
  return readdirSync(dir)
    .filter((file) => file.startsWith('traces.sqlite'))
    .map((file) => readFileSync(join(dir, file)).toString('latin1'))
    .join('\n')
}

/** A stored record of a GET answered 200 with an empty JSON list; trace id `svc_` + n padded to 32 digits. */
export function traceRecord(n: number, overrides: Partial<TraceRecord> = {}): TraceRecord {
  const traceId = `svc_${String(n).padStart(32, '0')}`
  return {
    trace_id: traceId,
    method: 'GET',
    path: '/api/posts',
    query: '',
    route: '/api/posts',
    status_code: 200,
    headers: { host: 'localhost', accept: '*/*' },
    body: { content: null, size: 0, truncated: false, incomplete: false },
    queries: [],
    middleware: [],
    exception: null,
    events: [],
    events_omitted: 0,
    refused_before_app: false,
    trace: null,
    duration_ms: 1.5 + n,
    memory_mb: 50,
    n_plus_one: [],
    ip: '127.0.0.1',
    timestamp: new Date(1_700_000_000_000 + n).toISOString(),
    user_id: null,
    response: {
      status: 200,
      headers: { 'content-type': 'application/json', 'x-service-trace-id': traceId },
      body: { content: { success: true, data: [] }, size: 29, truncated: false, incomplete: false },
    },
    ...overrides,
  }
}
