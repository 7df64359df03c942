/**
 * The project's trace store and tracer, as the CLI opens them: settings from
 * `TRACE_*` in `.env` and the environment, the store at
 * `storage/traces.sqlite` unless `TRACE_DATABASE_URL` says otherwise.
 * Commands that only read traces open it with `openTraceStoreToRead`, which
 * never creates the store or its folder.
 */
import { existsSync } from 'node:fs'
import { dirname, relative } from 'node:path'
import { ConfigError, type AppConfig } from '../../framework/index.ts'
import { createTracer, resolveTraceConfig, storeSink, type SvcTracer, type TraceConfig, type TraceSink, type TraceStore } from '../../framework/trace/index.ts'
import { openTraceSink, openTraceStore, traceDatabaseUrl } from '../../framework/node/index.ts'
import { diskFullHint, isDiskFull } from '../database/disk-full.ts'
import { CliError } from '../output/cli-error.ts'
import type { CommandIO } from '../output/io.ts'
import { printNote } from '../output/print.ts'
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

/** The trace store, created (with its folder) when it does not exist, unless `create: false`: see `openTraceStoreToRead` for the commands that only read. */
export async function openProjectTraceStore(project: Project, config: AppConfig = loadConfig(project), options: { busyTimeoutMs?: number; create?: boolean } = {}): Promise<TraceStore> {
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
    throw traceStoreError(project, traceConfig, error)
  }
}

/** The store could not be opened: a full disk says so (SQLITE_FULL is no wrong setting), anything else points at the settings. */
function traceStoreError(project: Project, traceConfig: TraceConfig, error: unknown): CliError {
  const file = traceDatabaseUrl({ url: traceConfig.databaseUrl, storageDir: project.storageDir, projectDir: project.root })
  const where = file.startsWith('file:') ? relative(project.root, file.slice('file:'.length)) : 'the trace store'
  return new CliError('E_TRACE_STORE', `Cannot open the trace store: ${(error as Error).message}`, {
    hint: isDiskFull(error) ? diskFullHint(where, 'start again') : 'check TRACE_DATABASE_URL (and TRACE_DATABASE_AUTH_TOKEN for a libsql:// server)',
  })
}

/** The local file of the project's trace store (`file:` URLs), null for a libSQL server. */
export function traceStoreFile(project: Project, config: AppConfig = loadConfig(project)): string | null {
  const url = traceDatabaseUrl({ url: projectTraceConfig(project, config).databaseUrl, storageDir: project.storageDir, projectDir: project.root })
  return url.startsWith('file:') ? url.slice('file:'.length) : null
}

/**
 * The trace store for a command that only reads traces: never creates the
 * store's file or folder. When the file does not exist:
 * - the default store (`storage/traces.sqlite`, no TRACE_DATABASE_URL): the
 *   project has not recorded a request yet; a note says so on stderr and an
 *   empty store (in memory) is returned, so that the command prints its empty
 *   result and `--json` stays a valid document;
 * - a file named by TRACE_DATABASE_URL: `E_TRACE_STORE` naming the path and
 *   the variable (a typo must not look like an empty store).
 */
export async function openTraceStoreToRead(io: CommandIO, project: Project, config: AppConfig = loadConfig(project)): Promise<TraceStore> {
  const store = await openExistingTraceStore(project, config)
  if (store !== undefined) return store
  printNote(io, noTracesYet(project, config))
  return openTraceStore({ url: ':memory:', storageDir: project.storageDir, projectDir: project.root })
}

/** The store if its file exists (or it is a libSQL server); undefined when the default store does not exist yet; `E_TRACE_STORE` when the file TRACE_DATABASE_URL names does not. */
export async function openExistingTraceStore(project: Project, config: AppConfig = loadConfig(project)): Promise<TraceStore | undefined> {
  const file = traceStoreFile(project, config)
  if (file !== null && !existsSync(file)) {
    const url = projectTraceConfig(project, config).databaseUrl
    if (url !== undefined) throw missingStoreError(project, file, url)
    return undefined
  }
  return openProjectTraceStore(project, config, { create: false })
}

/** What the read-only commands say when the default store does not exist yet. */
export function noTracesYet(project: Project, config: AppConfig = loadConfig(project)): string {
  const file = traceStoreFile(project, config) ?? 'the trace store'
  return `No traces yet: ${relative(project.root, file) || file} does not exist (svc serve creates it when it records the first request).`
}

function missingStoreError(project: Project, file: string, url: string): CliError {
  const folder = dirname(file)
  const what = existsSync(folder) ? `The trace store ${file} does not exist` : `The trace store ${file} does not exist, nor its folder ${folder}`
  return new CliError('E_TRACE_STORE', `${what} (TRACE_DATABASE_URL=${url})`, {
    hint: `check TRACE_DATABASE_URL in ${relative(project.root, project.envFile) || project.envFile} or the environment (a file: path is relative to the project); the server creates the store when it records its first request`,
  })
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
      throw traceStoreError(project, traceConfig, error)
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
