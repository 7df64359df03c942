/**
 * Builds the project's app the way every command sees it: `.env` and the
 * process environment, the database, `routes/api.ts`, `routes/web.ts`, the
 * optional `app/kernel.ts` (global middleware, aliases, health checks, CORS)
 * and the optional `app/listeners/index.ts` (event listeners, registered).
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import {
  authPlugin,
  ConfigError,
  createApp,
  createQueue,
  isAuthPlugin,
  listen,
  listenerQueue,
  releaseListeners,
  useListenerQueue,
  useListenerServices,
  queuedMailer,
  sendOrQueue,
  resolveConfig,
  resolveMailSettings,
  resolveQueueSettings,
  type App,
  type AppConfig,
  type AppPluginSpec,
  type Database,
  type EnvRecord,
  type KernelOptions,
  type JobServices,
  type Listener,
  type ListenerQueue,
  type Mailer,
  type Queue,
  type QueueSettings,
  type RouteDefinition,
} from '../../framework/index.ts'
import {
  checkJwtKeyPair,
  loadEnv,
  maintenanceFile,
  nativeArgon2id,
  databaseUrl,
  openDatabase,
  openMailer,
  openQueueDriver,
  publicFiles,
  readJwtKeyFiles,
  type ClosableMailer,
} from '../../framework/node/index.ts'
import { diskFullHint, isDiskFull } from '../database/disk-full.ts'
import { isReadOnlyStorage, readOnlyDatabaseError, tryWrite } from '../database/read-only.ts'
import { apiDocsPlugins } from '../openapi/docs-page.ts'
import { CliError } from '../output/cli-error.ts'
import { forgetAppModules, importWithJiti, moduleCacheDir, useModuleCache, type ImportFile } from './import-file.ts'
import { readConfigCache } from './config-cache.ts'
import { maintenancePath } from './maintenance.ts'
import { explainMissingTables } from './missing-table.ts'
import { PUBLIC_STORAGE_PREFIX, publicStorageLink } from './public-storage.ts'
import type { Project } from './project.ts'
import { openProjectTracer, type ProjectTracer } from '../trace/open-store.ts'

export interface LoadOptions {
  importFile?: ImportFile
  /** Values that win over `.env` and the process environment (tests, `--env`). */
  overrides?: EnvRecord
  /** False for commands that only describe the app (route:list): no database is opened or created. */
  withDatabase?: boolean
  /** False: requests are not traced (replay, regression). Default: traced whenever a database is opened. */
  trace?: boolean
  /** False: no docs page routes (make:openapi describes the API without them). Default: API_DOCS and the page decide. */
  apiDocs?: boolean
  /** Where the app's logs go (mail.log with MAIL_MAILER=log); default `<storage>/logs`. Regression replays write to a temporary folder. */
  logsDir?: string
  /**
   * True when the app answers other clients (`svc serve`): its traces are
   * written by TRACE_WRITER's writer, a worker thread by default, so that no
   * request waits for the store, and requests answer 503 while `svc down` is
   * in effect. A one-shot command (a replay) writes from its own thread,
   * starts no thread for it, and is not affected by maintenance mode.
   */
  serving?: boolean
}

export interface LoadedApp {
  app: App
  config: AppConfig
  database: Database | undefined
  /** The request tracer and its store (see docs/traces.md); undefined when not traced. */
  tracing: ProjectTracer | undefined
  /** The app's queue (QUEUE_CONNECTION); undefined without a database. */
  queue: Queue | undefined
  /** The mailer MAIL_MAILER names: what a worker sends with (the app's may be `queuedMailer`, with MAIL_QUEUE). */
  mailer: Mailer
  /** Flushes the traces, then closes the stores. */
  close(): Promise<void>
}

/**
 * The settings the app runs with: the config cache when there is a valid one
 * (see config-cache.ts), else `.env` under the process environment;
 * `overrides` (tests, `--env`) on top.
 */
export function loadConfig(project: Project, overrides: EnvRecord = {}): AppConfig {
  try {
    return resolveConfig({ ...configVariables(project), ...overrides })
  } catch (error) {
    if (isFileAccessError(error)) throw envFileError(project, 'read', error)
    throw error instanceof ConfigError ? configError(project, error) : error
  }
}

/**
 * `.env` the user running svc may not read (or, for `svc serve`'s first run, create): it said only
 * `error: EACCES: permission denied, open '.../.env'`, with no code and no fix.
 */
export function envFileError(project: Project, action: 'read' | 'create', error: unknown): CliError {
  const fix =
    action === 'read'
      ? `give the user running svc read access to ${project.envFile} (it holds JWT_SECRET: keep it mode 600, owned by that user)`
      : `create it yourself (copy .env.example, then svc key:generate), or run svc as a user who may write ${dirname(project.envFile)}`
  return new CliError('E_ENV_FILE', `Cannot ${action} ${project.envFile}: ${(error as Error).message}`, { hint: fix, cause: error })
}

export function isFileAccessError(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code
  return code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
}

/** A setting the app refuses, named with where to fix it. */
function configError(project: Project, error: ConfigError): CliError {
  return new CliError('E_CONFIG', `Invalid configuration: ${error.message}`, { hint: `fix ${error.variable} in ${project.envFile} or the environment` })
}

function configVariables(project: Project): EnvRecord {
  const cached = readConfigCache(project)
  if (cached.state === 'refused') project.report?.(cached.error)
  if (cached.state !== 'valid') return loadEnv(project.envFile, project.env)
  if (cached.stale) {
    project.report?.(
      new CliError('E_CONFIG_CACHE_STALE', `${project.envFile} changed after the config cache was written: the cache is used as it is`, {
        hint: 'svc config:cache writes it again (svc config:clear goes back to reading .env)',
      }),
    )
  }
  // A snapshot by design; yet `PORT=9000 svc serve` silently on the cached port would leave its user guessing.
  const ignored = Object.keys(cached.cache.vars).filter((name) => project.env[name] !== undefined && project.env[name] !== cached.cache.vars[name])
  if (ignored.length > 0) {
    project.report?.(
      new CliError('E_CONFIG_CACHE_OVERRIDE', `the environment sets ${ignored.sort().join(', ')}, ignored: the config cache holds the settings this start uses`, {
        hint: 'svc config:cache takes the environment again, or svc config:clear goes back to reading .env and the environment',
      }),
    )
  }
  return cached.cache.vars
}

/**
 * The database as a person finds it, for messages: a file as DATABASE_URL names it (else the default one,
 * relative to the project), a server by its scheme and host only (its URL may carry a password or token).
 */
export function databaseWhere(project: Project, config: AppConfig): string {
  const url = config.databaseUrl
  if (url === undefined) return relative(project.root, join(project.storageDir, 'database.sqlite')) || 'database.sqlite'
  if (url.startsWith('file:')) return url
  try {
    const parsed = new URL(url)
    return `${parsed.protocol}//${parsed.host}`
  } catch {
    return 'DATABASE_URL'
  }
}

export async function openProjectDatabase(project: Project, config: AppConfig): Promise<Database> {
  try {
    return await openDatabase({
      url: config.databaseUrl,
      authToken: config.databaseAuthToken,
      storageDir: project.storageDir,
      projectDir: project.root,
    })
  } catch (error) {
    // A file (or folder) svc may not write: SQLite says only "unable to open database file".
    const file = databaseFile(project, config)
    if (file !== undefined && isReadOnlyStorage(error)) throw readOnlyDatabaseError(file, error)
    throw new CliError('E_DATABASE', `Cannot open the database: ${(error as Error).message}`, {
      hint: isDiskFull(error) ? diskFullHint(databaseWhere(project, config), 'run it again') : 'check DATABASE_URL (and DATABASE_AUTH_TOKEN for a libsql:// server)',
    })
  }
}

/** The app's database file, relative to the project when inside it; undefined for a database server. */
function databaseFile(project: Project, config: AppConfig): string | undefined {
  const url = databaseUrl(config.databaseUrl, { storageDir: project.storageDir, projectDir: project.root })
  if (!url.startsWith('file:')) return undefined
  const path = url.slice('file:'.length)
  if (path.startsWith(':')) return undefined
  return relative(project.root, path) || path
}

/**
 * Before serving: a database file SQLite opened read-only (the server's user may read it but not write it)
 * would answer 500 to every write, so the server refuses to start and says which file and what to do.
 */
async function ensureWritableDatabase(project: Project, config: AppConfig, database: Database): Promise<void> {
  const file = databaseFile(project, config)
  if (file === undefined) return
  try {
    await tryWrite(database)
  } catch (error) {
    // Anything else (a write lock another process holds for a while) is not this check's to refuse.
    if (isReadOnlyStorage(error)) throw readOnlyDatabaseError(file, error)
  }
}

export async function loadApp(project: Project, options: LoadOptions = {}): Promise<LoadedApp> {
  const importFile = options.importFile ?? importWithJiti
  if (importFile === importWithJiti) {
    forgetAppModules(project.appDir)
    useModuleCache(moduleCacheDir(project.storageDir))
  }
  const config = loadConfig(project, options.overrides)
  const database = options.withDatabase === false ? undefined : await openProjectDatabase(project, config)
  if (database !== undefined && options.serving === true) {
    try {
      await ensureWritableDatabase(project, config, database)
    } catch (error) {
      database.close()
      throw error
    }
  }
  let tracing: ProjectTracer | undefined
  let mailer: ClosableMailer | undefined
  let queue: Queue | undefined
  // What this app installs in the process's event registry, taken back when it closes (releaseListeners).
  const installed: { listeners: Listener[]; queue?: ListenerQueue | undefined; services?: JobServices } = { listeners: [] }
  // Each part is closed whatever the one before throws: traces first (their last writes), the database last.
  const close = async () => {
    releaseListeners(installed)
    try {
      await tracing?.close()
    } finally {
      try {
        await mailer?.close?.()
      } finally {
        try {
          await queue?.driver.close()
        } finally {
          database?.close()
        }
      }
    }
  }
  try {
    const mailSettings = resolveMailSettings(config)
    const logsDir = options.logsDir ?? join(project.storageDir, 'logs')
    mailer = await openMailer(mailSettings, logsDir)
    const queueSettings = resolveQueueSettings(config)
    if (database !== undefined) queue = createQueue(await openQueueDriver(queueSettings, database), { db: database, mailer, config })
    const appMailer = appMailerOf(mailer, queue, mailSettings.queue, queueSettings.connection)
    if (database !== undefined && options.trace !== false) tracing = await openProjectTracer(project, config, { serving: options.serving === true })
    const api = await loadDefault<RouteDefinition>(importFile, join(project.appDir, 'routes', 'api.ts'))
    const web = await loadDefault<RouteDefinition>(importFile, join(project.appDir, 'routes', 'web.ts'))
    const kernel = (await loadDefault<KernelOptions>(importFile, join(project.appDir, 'app', 'kernel.ts'))) ?? {}
    installed.listeners = await registerListeners(importFile, join(project.appDir, 'app', 'listeners', 'index.ts'))
    // Queued listeners go to this app's queue (the registry is per process: the last app loaded holds it).
    installed.queue = queue === undefined ? undefined : listenerQueue(queue)
    installed.services = { db: database, queue, mailer: appMailer, config }
    useListenerQueue(installed.queue)
    useListenerServices(installed.services)
    const docs = options.apiDocs === false ? [] : apiDocsPlugins(project, config, web?.routes.map((route) => route.path) ?? [], options.serving === true)
    const plugins = [...withAuth(project, config, database !== undefined, kernel.plugins), ...docs, ...(tracing ? [tracing.tracer.plugin] : []), ...publicStorage(project)]
    const maintenance = options.serving === true ? maintenanceFile(maintenancePath(project, config)) : undefined
    // The kernel's own onError decides alone; else a missing table is explained (missing-table.ts).
    const onError = kernel.onError ?? (database === undefined ? undefined : explainMissingTables(project, database, databaseWhere(project, config)))
    const app = createApp({ ...kernel, config, database, api, web, plugins, tracer: tracing?.tracer, maintenance, queue, mailer: appMailer, onError })
    return { app, config, database, tracing, queue, mailer, close }
  } catch (error) {
    await close()
    if (error instanceof CliError) throw error
    if (error instanceof ConfigError) throw configError(project, error)
    throw new CliError('E_APP_LOAD', `Cannot load the app: ${(error as Error).message}`, {
      hint: missingPackageHint(project, error) ?? 'fix the error above in your routes or kernel (SVC_DEBUG=1 shows the stack)',
      cause: error,
    })
  }
}

/**
 * A package the app imports that is not installed (`svc new` then a command before `npm install`): the fix is to
 * install it, not to edit the routes the generic hint points at.
 */
export function missingPackageHint(project: Project, error: unknown): string | undefined {
  const named = /Cannot find (?:module|package) '([^']+)'/.exec(error instanceof Error ? error.message : '')?.[1]
  if (named === undefined || named.startsWith('.') || named.startsWith('/') || /^[A-Za-z]:[\\/]/.test(named)) return undefined
  const parts = named.split('/')
  const name = named.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!
  const declaredIn = [...new Set([project.appDir, project.root])].find((dir) => {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>
      return [manifest.dependencies, manifest.devDependencies, manifest.optionalDependencies].some((list) => list !== undefined && name in list)
    } catch {
      return false // no readable package.json here
    }
  })
  return declaredIn !== undefined
    ? `the package ${name} is in package.json but not installed: run npm install in ${declaredIn}`
    : `the package ${name} is not installed: npm install ${name} (or fix the import if the name is wrong)`
}

/**
 * Authentication is on in every app: the auth plugin (mails through the app's
 * mailer, RS256 keys from storage/keys/, the native argon2id)
 * comes first, unless the kernel lists its own `authPlugin({...})`.
 */
function withAuth(project: Project, config: AppConfig, checkKeys: boolean, plugins: AppPluginSpec[] = []): AppPluginSpec[] {
  const keys = readJwtKeyFiles(project.storageDir)
  // An RS256 pair that cannot be used stops start-up here, not at the first login (for an app with a database: one that signs in).
  if (checkKeys) checkJwtKeyPair(config, keys)
  if (plugins.some(isAuthPlugin)) return plugins
  const auth = authPlugin({ keys, argon2id: nativeArgon2id })
  return [auth, ...plugins]
}

/** The files `svc storage:link` publishes (public/storage), served under /storage/ once the link exists (docs/storage.md). */
function publicStorage(project: Project): AppPluginSpec[] {
  return [{ name: 'public-storage', middleware: [publicFiles({ folder: publicStorageLink(project), prefix: PUBLIC_STORAGE_PREFIX })] }]
}

/** `app/listeners/index.ts`: the app's event listeners (`export default [...]`), registered for `emit`. */
async function registerListeners(importFile: ImportFile, path: string): Promise<Listener[]> {
  const listeners = await loadDefault<unknown>(importFile, path)
  if (listeners === undefined) return []
  if (!Array.isArray(listeners) || !listeners.every((each) => typeof (each as Partial<Listener>)?.handle === 'function')) {
    throw new CliError('E_APP_LOAD', `${path} does not export a list of listeners`, { hint: 'export default [sendWelcomeMail] satisfies Listener[] (see docs/generators.md)' })
  }
  listen(...(listeners as Listener[]))
  return listeners as Listener[]
}

async function loadDefault<T>(importFile: ImportFile, path: string): Promise<T | undefined> {
  if (!existsSync(path)) return undefined
  const module = await importFile(path)
  if (module.default === undefined) {
    throw new CliError('E_APP_LOAD', `${path} has no default export`, {
      hint: 'export default defineRoutes((r) => { ... }) (or defineKernel({...}) in app/kernel.ts)',
    })
  }
  return module.default as T
}

/** What the app sends with: through the queue (MAIL_QUEUE), or at once with the queue to retry what fails, or at once. */
function appMailerOf(mailer: Mailer, queue: Queue | undefined, throughQueue: boolean, connection: QueueSettings['connection']): Mailer {
  if (queue === undefined) return mailer
  if (throughQueue) return queuedMailer(queue)
  // The sync driver runs a job at once: the retry would fail as the send did, so there is nothing to fall back on.
  return connection === 'sync' ? mailer : sendOrQueue(mailer, queue)
}
