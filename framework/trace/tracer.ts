/**
 * svc's tracer: records every request (or those the configured modes select)
 * into a trace store, without making any request wait for a write.
 *
 * @example
 * const store = new TraceStore(await openTraceDatabase(...))
 * const tracer = createTracer({ sink: store, config: resolveTraceConfig(env) })
 * const app = createApp({ ..., tracer, plugins: [tracer.plugin] })
 * // on shutdown: await tracer.close()
 */
import type { AppPlugin } from '../app/create-app.ts'
import type { Context } from '../context/context.ts'
import { RequestCapture, snapshot } from './capture.ts'
import type { TraceConfig } from './config.ts'
import { QuerySites } from './query-site.ts'
import type { RequestRecorder, Tracer } from './recorder.ts'
import { isLockError, type TraceSink } from './store.ts'
import { TraceWriter, type WriterStats } from './writer.ts'

export interface TracerOptions {
  sink: TraceSink
  config: TraceConfig
  /** A store failure (the trace is lost, the request is not affected). Default: console.error, at most once a minute. */
  onError?: (error: unknown) => void
  /** For tests: the random source of `sample` mode. */
  random?: () => number
  /** For tests: how often automatic pruning runs (default once a minute). */
  pruneEveryMs?: number
}

export interface SvcTracer extends Tracer {
  readonly config: TraceConfig
  /** Counts of the writer, as `/health/ready` shows them under `checks.traces`. */
  stats(): WriterStats & { modes: string[] }
  /** Writes every accepted trace now. */
  flush(): Promise<void>
  /** Refuses new traces and writes the accepted ones (graceful stop). */
  close(): Promise<void>
  /** Adds the `traces` health check (drop counts in `/health/ready`). */
  readonly plugin: AppPlugin
}

export function createTracer(options: TracerOptions): SvcTracer {
  const { config } = options
  const modes = config.modes
  const off = modes.has('off')
  const all = modes.has('all')
  const random = options.random ?? Math.random
  const writer = new TraceWriter(options.sink, config, options.onError ?? throttledConsoleError(), { pruneEveryMs: options.pruneEveryMs })
  const sites = new QuerySites()

  function keep(c: Context, status: number, durationMs: number): boolean {
    if (all) return true
    if (modes.has('errors') && (status >= 400 || c.error !== undefined)) return true
    if (modes.has('slow') && durationMs >= config.slowMs) return true
    if (modes.has('sample') && (status >= 500 || random() < config.sampleRate)) return true
    return false
  }

  const stats = () => ({ ...writer.stats, modes: [...modes] })

  return {
    config,
    begin(c: Context): RequestRecorder | undefined {
      return off ? undefined : new RequestCapture(sites, c)
    },
    end(c: Context, response: Response, recorder: RequestRecorder): void {
      const capture = recorder as RequestCapture
      if (!all && !keep(c, response.status, performance.now() - capture.startedAt)) return
      // Workers: the write is part of the request's work (waitUntil), as no timer fires after the response.
      const waitUntil = c.executionCtx?.waitUntil
      writer.push(snapshot(c, response, capture, config.bodyLimit), waitUntil === undefined ? undefined : (work) => waitUntil.call(c.executionCtx, work))
    },
    stats,
    flush: () => writer.flush(),
    close: () => writer.close(),
    plugin: {
      name: 'traces',
      healthChecks: {
        async traces() {
          const { accepted, written, dropped, failed, pending, capacity, high_water } = writer.stats
          const lag = writer.lag()
          const counts = { modes: [...modes], accepted, written, dropped, failed, pending, capacity, high_water }
          return lag === undefined ? counts : { ...counts, status: 'degraded', reason: lag }
        },
      },
    },
  }
}

/** The tracer's default `onError`: one line on stderr for a store failure, each kind (a lock, a loss) at most once a minute. */
export function throttledConsoleError(log: (line: string) => void = console.error): (error: unknown) => void {
  // Each kind at most once a minute: a lock reported a moment ago must not hide a trace lost now.
  const last = { locked: Number.NEGATIVE_INFINITY, lost: Number.NEGATIVE_INFINITY }
  return (error) => {
    const now = Date.now()
    const kind = isLockError(error) ? 'locked' : 'lost'
    if (now - last[kind] < 60_000) return
    last[kind] = now
    const message = error instanceof Error ? error.message : String(error)
    // A locked store loses nothing (the batch waits and is tried again): said so, not as a lost trace.
    if (kind === 'locked') log(`svc traces: the trace store is locked by another connection (${message}); the batch waits and is tried again`)
    else log(`svc traces: a trace could not be written: ${message}`)
  }
}
