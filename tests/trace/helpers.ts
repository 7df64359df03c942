/** Builders for the trace tests: a traced app over a temporary trace store. */
import { join } from 'node:path'
import { createApp, createTracer, resolveTraceConfig, storeSink, type AppOptions, type EnvRecord, type SvcTracer, type TraceConfig, type TraceSink, type TraceStore } from 'svc'
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
