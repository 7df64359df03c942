/**
 * The project's trace store and tracer, as the CLI opens them: settings from
 * `TRACE_*` in `.env` and the environment, the store at
 * `storage/traces.sqlite` unless `TRACE_DATABASE_URL` says otherwise.
 */
import { ConfigError, type AppConfig } from '../../framework/index.ts'
import { createTracer, resolveTraceConfig, storeSink, type SvcTracer, type TraceConfig, type TraceSink, type TraceStore } from '../../framework/trace/index.ts'
import { openTraceSink, openTraceStore } from '../../framework/node/index.ts'
import { CliError } from '../output/cli-error.ts'
import { loadConfig } from '../project/load-app.ts'
import type { Project } from '../project/project.ts'

export function projectTraceConfig(project: Project, config: AppConfig): TraceConfig {
  try {
    return resolveTraceConfig(config.vars)
  } catch (error) {
    if (error instanceof ConfigError) {
      throw new CliError('E_CONFIG', `Invalid configuration: ${error.message}`, {
        hint: `fix ${error.variable} in ${project.envFile} or the environment (see docs/traces.md)`,
      })
    }
    throw error
  }
}

export async function openProjectTraceStore(project: Project, config: AppConfig = loadConfig(project), options: { busyTimeoutMs?: number } = {}): Promise<TraceStore> {
  const traceConfig = projectTraceConfig(project, config)
  try {
    return await openTraceStore({
      url: traceConfig.databaseUrl,
      authToken: traceConfig.databaseAuthToken,
      storageDir: project.storageDir,
      projectDir: project.root,
      ...options,
    })
  } catch (error) {
    throw new CliError('E_TRACE_STORE', `Cannot open the trace store: ${(error as Error).message}`, {
      hint: 'check TRACE_DATABASE_URL (and TRACE_DATABASE_AUTH_TOKEN for a libsql:// server)',
    })
  }
}

export interface ProjectTracer {
  tracer: SvcTracer
  /** Where its batches are written: a worker thread, or the thread that answers. */
  writer: 'worker' | 'thread'
  /** Writes every accepted trace, then closes the store. */
  close(): Promise<void>
}

/**
 * The tracer `svc serve` (and every command that builds the app) attaches;
 * undefined when TRACE_MODE=off. Records are built on the request thread,
 * 16 at a time. A server (`serving`) writes them as TRACE_WRITER says
 * (`auto` by default: from a worker thread where the process can run on
 * more than one CPU, between requests on the request thread where it can
 * run on one, never waiting for a locked store there); a one-shot command
 * writes from its own thread (see docs/traces.md, "Storage").
 */
export async function openProjectTracer(project: Project, config: AppConfig, options: { serving?: boolean } = {}): Promise<ProjectTracer | undefined> {
  const traceConfig = projectTraceConfig(project, config)
  if (traceConfig.modes.has('off')) return undefined
  let sink: TraceSink & { close(): Promise<void> }
  let writer: 'worker' | 'thread' = 'thread'
  if (options.serving === true) {
    try {
      const opened = await openTraceSink(
        { url: traceConfig.databaseUrl, authToken: traceConfig.databaseAuthToken, storageDir: project.storageDir, projectDir: project.root },
        traceConfig.writer,
      )
      sink = opened
      writer = opened.writer
    } catch (error) {
      throw new CliError('E_TRACE_STORE', `Cannot open the trace store: ${(error as Error).message}`, {
        hint: 'check TRACE_DATABASE_URL (and TRACE_DATABASE_AUTH_TOKEN for a libsql:// server)',
      })
    }
  } else {
    const store = await openProjectTraceStore(project, config, { busyTimeoutMs: 0 })
    sink = { ...storeSink(store), close: async () => store.close() }
  }
  const tracer = createTracer({ sink, config: traceConfig })
  return {
    tracer,
    writer,
    async close() {
      try {
        await tracer.close()
      } finally {
        await sink.close()
      }
    },
  }
}
