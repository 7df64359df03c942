/**
 * The blog as the entry files of every runtime build it (node.ts, deno.ts,
 * bun.ts, workers.ts): its routes, the auth routes, its event listeners on
 * the queue QUEUE_CONNECTION names, a tracer writing to the sink it is given,
 * and its migrations (bundled by `svc migrate:bundle`) applied on start.
 * Web standards only: what needs Node (the log and SMTP mailers, Redis) is
 * the entry's to give (node.ts gives them).
 */
import {
  authPlugin,
  ConfigError,
  consoleMailer,
  createApp,
  createQueue,
  databaseQueueDriver,
  listen,
  listenerQueue,
  migrate,
  queuedMailer,
  resolveMailSettings,
  resolveQueueSettings,
  syncQueueDriver,
  releaseListeners,
  useListenerQueue,
  useListenerServices,
  type App,
  type AppConfig,
  type Database,
  type MaintenanceSource,
  type Mailer,
  type QueueDriver,
} from 'svc'
import { createTracer, resolveTraceConfig, type SvcTracer, type TraceSink } from 'svc/trace'
import listeners from '../app/listeners/index.ts'
import migrations from '../database/migrations/index.ts'
import api from '../routes/api.ts'
import web from '../routes/web.ts'

export interface BlogApp {
  app: App
  tracer: SvcTracer
  /** Takes back the listeners, queue and services this app installed for `emit` (a test that builds it in process). */
  release(): void
}

export interface BlogServices {
  /** The mailer MAIL_MAILER names, where the runtime has it (Node: log, smtp); else the console's. */
  mailer?: Mailer
  /** The queue driver, where the runtime has one of its own (Node: redis); else database or sync, from QUEUE_CONNECTION. */
  queueDriver?: QueueDriver
  /** Maintenance mode (`svc down`): the runtime's poll of the state file (Node, Deno, Bun: `maintenanceFile`); none, always up. */
  maintenance?: MaintenanceSource
}

export async function blogApp(config: AppConfig, database: Database, traces: TraceSink, services: BlogServices = {}): Promise<BlogApp> {
  await migrate(database, migrations)
  const tracer = createTracer({ sink: traces, config: resolveTraceConfig(config.vars) })
  const mail = resolveMailSettings(config)
  const mailer = services.mailer ?? consoleMailer()
  if (services.mailer === undefined && mail.mailer !== 'console') {
    console.warn(`MAIL_MAILER=${mail.mailer} needs Node: mails are printed here${mail.queue ? ' (MAIL_QUEUE=true: a Node `svc queue:work` sends them)' : ''}`)
  }
  const queue = createQueue(services.queueDriver ?? webQueueDriver(config, database), { db: database, mailer, config })
  // As `svc serve` does: queued listeners (the author's mail of POST /api/v2/posts) go to the app's queue.
  listen(...listeners)
  const installedQueue = listenerQueue(queue)
  useListenerQueue(installedQueue)
  const appMailer = mail.queue ? queuedMailer(queue) : mailer
  const installedServices = { db: database, queue, mailer: appMailer, config }
  useListenerServices(installedServices)
  const plugins = [authPlugin({ mailer: appMailer }), tracer.plugin]
  return {
    app: createApp({ config, database, api, web, tracer, plugins, queue, mailer: appMailer, maintenance: services.maintenance }),
    tracer,
    release: () => releaseListeners({ listeners, queue: installedQueue, services: installedServices }),
  }
}

function webQueueDriver(config: AppConfig, database: Database): QueueDriver {
  const settings = resolveQueueSettings(config)
  if (settings.connection === 'sync') return syncQueueDriver()
  if (settings.connection === 'redis') throw new ConfigError('QUEUE_CONNECTION', 'redis needs Node (svc serve); use database or sync on this runtime')
  return databaseQueueDriver(database, { leaseMs: settings.leaseMs })
}
