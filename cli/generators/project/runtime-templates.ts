/**
 * What a new project needs to run on Deno, Bun and Cloudflare Workers
 * (docs/runtimes.md, "A project of your own"): the entry files in runtimes/,
 * wrangler.toml, .dev.vars (wrangler dev's secret) and the migrations as one
 * module (database/migrations/index.ts, which the scripts rewrite with
 * `svc runtime:prepare` before each start). Before, a new project had
 * none of them, and docs/runtimes.md only showed the example's.
 */
import { AUTH_MIGRATION_SOURCES } from '../../project/migration-file.ts'
import { renderMigrationBundle } from '../../project/migration-bundle.ts'
import type { ProjectTemplate } from './templates.ts'

/** The Deno permissions `npm run start:deno` passes: the narrowest that work (docs/runtimes.md, "Deno"). */
export const DENO_PERMISSIONS = '--allow-env --allow-net=127.0.0.1 --allow-read=. --allow-write=storage --allow-ffi --allow-sys=cpus,networkInterfaces,hostname'

/**
 * package.json's scripts for the other runtimes. `svc runtime:prepare` goes first: it stops with what to install
 * when the runtime is missing (the shell said only `sh: deno: not found`), makes .env as npm start does (Deno
 * and Bun stopped on a ConfigError on a fresh clone) and rewrites the migrations module, so a new migration is in.
 */
export const RUNTIME_SCRIPTS: Readonly<Record<string, string>> = {
  'start:deno': `svc runtime:prepare deno && deno run --env-file=.env ${DENO_PERMISSIONS} runtimes/deno.ts`,
  'start:bun': 'svc runtime:prepare bun && bun run runtimes/bun.ts',
  'dev:workers': 'svc runtime:prepare workers && wrangler dev',
  'deploy:workers': 'svc runtime:prepare workers && wrangler deploy',
}

/** A Worker's name: lowercase letters, digits and dashes (an npm name may also have . _ ~). */
export function workerName(packageName: string): string {
  return packageName.replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '') || 'svc-app'
}

export const migrationsModule: ProjectTemplate = () => ({
  path: 'database/migrations/index.ts',
  contents: renderMigrationBundle(AUTH_MIGRATION_SOURCES.map((source) => `${source.name}.ts`)),
})

export const runtimeApp: ProjectTemplate = () => ({
  path: 'runtimes/app.ts',
  contents: `/**
 * The app as the Deno, Bun and Workers entries build it (deno.ts, bun.ts,
 * workers.ts beside this file): what \`svc serve\` loads on Node (routes/api.ts,
 * routes/web.ts, app/kernel.ts, the auth routes, the listeners of
 * app/listeners/index.ts on the queue QUEUE_CONNECTION names), a tracer
 * writing to the sink it is given, and the migrations as one module (database/migrations/index.ts,
 * written by \`svc migrate:bundle\`, which the scripts' \`svc runtime:prepare\` runs first),
 * applied on start. Web standards only: mails are printed to the console.
 */
import {
  authPlugin,
  ConfigError,
  consoleMailer,
  createApp,
  createQueue,
  databaseQueueDriver,
  isAuthPlugin,
  listen,
  listenerQueue,
  migrate,
  resolveQueueSettings,
  syncQueueDriver,
  useListenerQueue,
  useListenerServices,
  type App,
  type AppConfig,
  type Database,
  type JwtKeyMaterial,
  type MaintenanceSource,
  type QueueDriver,
} from 'svc'
import { createTracer, resolveTraceConfig, type SvcTracer, type TraceSink } from 'svc/trace'
import kernel from '../app/kernel.ts'
import listeners from '../app/listeners/index.ts'
import migrations from '../database/migrations/index.ts'
import api from '../routes/api.ts'
import web from '../routes/web.ts'

export interface RuntimeApp {
  app: App
  tracer: SvcTracer
}

export interface RuntimeServices {
  /** Maintenance mode (\`svc down\`): the runtime's poll of the state file (Deno, Bun); none, always up. */
  maintenance?: MaintenanceSource
  /** RS256: the key files of storage/keys/ (Deno, Bun); JWT_PRIVATE_KEY and JWT_PUBLIC_KEY win over them. */
  keys?: JwtKeyMaterial
}

export async function runtimeApp(config: AppConfig, database: Database, traces: TraceSink, services: RuntimeServices = {}): Promise<RuntimeApp> {
  await migrate(database, migrations)
  const tracer = createTracer({ sink: traces, config: resolveTraceConfig(config.vars) })
  const mailer = consoleMailer()
  const queue = createQueue(queueDriver(config, database), { db: database, mailer, config })
  // As svc serve does: the listeners (\`svc make:listener\`) are registered, queued ones go to the app's queue.
  listen(...listeners)
  useListenerQueue(listenerQueue(queue))
  useListenerServices({ db: database, queue, mailer, config })
  // As svc serve does: the auth routes come first, unless the kernel lists its own authPlugin({...}).
  const own = kernel.plugins ?? []
  const plugins = [...(own.some(isAuthPlugin) ? [] : [authPlugin({ mailer, keys: services.keys })]), ...own, tracer.plugin]
  return { app: createApp({ ...kernel, config, database, api, web, tracer, plugins, queue, mailer, maintenance: services.maintenance }), tracer }
}

/** QUEUE_CONNECTION: \`database\` (the jobs table, \`svc make:queue-table\`; a Node \`svc queue:work\` runs them) or \`sync\`. */
function queueDriver(config: AppConfig, database: Database): QueueDriver {
  const settings = resolveQueueSettings(config)
  if (settings.connection === 'sync') return syncQueueDriver()
  if (settings.connection === 'redis') throw new ConfigError('QUEUE_CONNECTION', 'redis needs Node (npm start); use database or sync on this runtime')
  return databaseQueueDriver(database, { leaseMs: settings.leaseMs })
}
`,
})

/** The Deno and Bun entries: the same file but for the adapter it imports (svc/deno, svc/bun) and the name it prints. */
function serverEntry(runtime: 'deno' | 'bun', name: string): ProjectTemplate {
  return () => ({
    path: `runtimes/${runtime}.ts`,
    contents: `/**
 * The app on ${name}: \`npm run start:${runtime}\` (docs/runtimes.md).
 */
import { pendingApp, resolveConfig, withServedUrl, type Database } from 'svc'
import { maintenanceFile, openDatabase, openTraceStore, readEnv, readJwtKeyFiles, serve } from 'svc/${runtime}'
import { resolveTraceConfig, storeSink, type SvcTracer } from 'svc/trace'
import { runtimeApp } from './app.ts'

// Read as svc serve reads it: a blank value (\`DATABASE_URL=\` in .env) is unset.
const env = readEnv()
const config = resolveConfig(env)
let database: Database | undefined
let traces: Awaited<ReturnType<typeof openTraceStore>> | undefined
let tracer: SvcTracer | undefined

// It listens first, as svc serve does: with APP_URL unset, the links in mails name the port it got (PORT=0 too).
const pending = pendingApp()
const server = serve(pending, {
  port: config.port,
  host: config.host,
  // On SIGINT/SIGTERM, after the in-flight requests: every accepted trace is written, then the stores close.
  onClose: async () => {
    await tracer?.close()
    traces?.close()
    database?.close()
  },
})
try {
  const served = resolveConfig(withServedUrl(env, server))
  // The files svc serve, svc migrate and svc trace:list use: storage/database.sqlite, storage/traces.sqlite.
  database = await openDatabase({ url: served.databaseUrl ?? 'file:storage/database.sqlite', authToken: served.databaseAuthToken })
  traces = await openTraceStore({ url: resolveTraceConfig(served.vars).databaseUrl ?? 'file:storage/traces.sqlite' })
  // \`svc down\` writes it: polled at most once a second.
  const maintenance = maintenanceFile(served.vars.MAINTENANCE_FILE?.trim() || 'storage/maintenance.json')
  // RS256 (svc new --jwt=RS256, svc key:generate --rs256): the key pair in storage/keys/.
  const keys = await readJwtKeyFiles('storage')
  const built = await runtimeApp(served, database, storeSink(traces), { maintenance, keys })
  tracer = built.tracer
  pending.ready(built.app)
} catch (error) {
  pending.failed(error)
  await server.close()
  throw error
}
console.log(\`Serving on ${name}: \${server.url}\`)
`,
  })
}

export const denoEntry: ProjectTemplate = serverEntry('deno', 'Deno')
export const bunEntry: ProjectTemplate = serverEntry('bun', 'Bun')

export const workersEntry: ProjectTemplate = () => ({
  path: 'runtimes/workers.ts',
  contents: `/**
 * The app on Cloudflare Workers: \`npm run dev:workers\` (wrangler dev, D1 kept
 * in .wrangler/state), \`npm run deploy:workers\` (wrangler.toml says how).
 * D1 holds the app's tables (binding DB) and the traces (binding TRACES); the
 * migrations come bundled (\`svc migrate:bundle\`) and run on the isolate's
 * first request. No \`nodejs_compat\`: svc needs no Node API here.
 */
import { ConfigError, resolveConfig } from 'svc'
import { d1Database, stringVars, workersHandler, type D1DatabaseBinding } from 'svc/workers'
import { storeSink, TraceStore } from 'svc/trace'
import { runtimeApp } from './app.ts'

export interface Env {
  DB: D1DatabaseBinding
  TRACES: D1DatabaseBinding
  /** \`[vars]\` and secrets (JWT_SECRET: \`wrangler secret put JWT_SECRET\`; for \`wrangler dev\`, .dev.vars). */
  [name: string]: unknown
}

export default workersHandler<Env>(async (env) => {
  const config = resolveConfig(stringVars(env))
  // The links in mails: a Worker has no HOST:PORT of its own, and the Host header is the client's to write.
  if (config.env === 'production' && (config.vars.APP_URL ?? '').trim() === '') {
    throw new ConfigError('APP_URL', 'is required in production: the address the links in mails point to (https://...)')
  }
  const traces = new TraceStore(d1Database(env.TRACES))
  await traces.init()
  // The tracer writes each request's trace through ctx.waitUntil: no timer runs after a Worker's response.
  return runtimeApp(config, d1Database(env.DB), storeSink(traces))
})
`,
})

export const wranglerToml: ProjectTemplate = (s) => {
  const name = workerName(s.name)
  return {
    path: 'wrangler.toml',
    contents: `# The app on Cloudflare Workers (docs/runtimes.md). Locally: \`npm run dev:workers\` (wrangler dev, with
# its D1 databases in .wrangler/state and the secret from .dev.vars). To deploy, create the databases once:
#   npx wrangler d1 create ${name} && npx wrangler d1 create ${name}-traces
# put their ids below, set APP_URL below and the signing key (\`npx wrangler secret put ${s.jwtAlgorithm === 'RS256' ? 'JWT_PRIVATE_KEY' : 'JWT_SECRET'}\`), then
#   npm run deploy:workers
name = "${name}"
main = "runtimes/workers.ts"
compatibility_date = "2025-09-01"
# No compatibility_flags: svc runs without nodejs_compat.

[vars]
APP_ENV = "production"
# Where the links in mails point; required in production (every request answers 500 without it).
# APP_URL = "https://${name}.<your-subdomain>.workers.dev"
# Each isolate has its own memory: the throttle counts in D1.
THROTTLE_STORE = "database"
# No \`svc queue:work\` reaches D1: queued work runs in the request.
QUEUE_CONNECTION = "sync"
# The log and SMTP mailers need Node: mails go to the Worker's log.
MAIL_MAILER = "console"
# As .env says (a Worker reads no .env): ${s.jwtAlgorithm === 'RS256' ? 'the pair from JWT_PRIVATE_KEY and JWT_PUBLIC_KEY (`npx wrangler secret put JWT_PRIVATE_KEY < storage/keys/jwt-private.pem`, the same for the public key; .dev.vars has them for wrangler dev)' : 'JWT_SECRET signs the tokens'}.
JWT_ALGORITHM = "${s.jwtAlgorithm}"

# preview_database_id: the local D1 of \`wrangler dev\` (\`npx wrangler d1 execute ${name}-traces --local ...\` reads it).
[[d1_databases]]
binding = "DB"
database_name = "${name}"
database_id = "00000000-0000-0000-0000-000000000000"
preview_database_id = "${name}"

[[d1_databases]]
binding = "TRACES"
database_name = "${name}-traces"
database_id = "00000000-0000-0000-0000-000000000001"
preview_database_id = "${name}-traces"
`,
  }
}

/** `wrangler dev` reads it over wrangler.toml's [vars]: development, and the same JWT_SECRET as .env (git-ignored). */
export const devVars: ProjectTemplate = (s) => ({
  path: '.dev.vars',
  mode: 0o600,
  contents: `# Read by \`wrangler dev\` (npm run dev:workers) over wrangler.toml's [vars]; not committed (a secret).
APP_ENV=development
APP_URL=http://localhost:8787
JWT_SECRET=${s.secret}
${s.jwtKeys === undefined ? '' : rs256DevVars(s.jwtKeys)}`,
})

/** What a clone of the project has (.dev.vars is not committed): the same settings, without the secret. */
export const devVarsExample: ProjectTemplate = (s) => ({
  path: '.dev.vars.example',
  contents: `# Copy to .dev.vars (not committed: it holds a secret) for \`wrangler dev\` (npm run dev:workers), and put .env's
# ${s.jwtAlgorithm === 'RS256' ? 'RS256 pair in: JWT_PRIVATE_KEY="<storage/keys/jwt-private.pem>" and JWT_PUBLIC_KEY="<storage/keys/jwt-public.pem>", double-quoted' : 'JWT_SECRET in (or a fresh one: npx svc key:generate --show)'}.
APP_ENV=development
APP_URL=http://localhost:8787
JWT_SECRET=
`,
})

/** A Worker has no storage/keys/: the pair as variables, in double quotes over several lines (wrangler's .dev.vars reads them so). */
function rs256DevVars(keys: { privateKey: string; publicKey: string }): string {
  return `JWT_PRIVATE_KEY="${keys.privateKey.trim()}"\nJWT_PUBLIC_KEY="${keys.publicKey.trim()}"\n`
}

/** The list runtimes/app.ts imports (svc serve reads it too); \`svc make:listener\` appends to it. */
export const listenersIndex: ProjectTemplate = () => ({
  path: 'app/listeners/index.ts',
  contents: `/** The app's event listeners: svc registers them when it loads the app (runtimes/app.ts too). \`svc make:listener\` adds each new one. */
import type { Listener } from 'svc'

export default [] satisfies Listener[]
`,
})

export const RUNTIME_TEMPLATES: readonly ProjectTemplate[] = [listenersIndex, migrationsModule, runtimeApp, denoEntry, bunEntry, workersEntry, wranglerToml, devVars, devVarsExample]
