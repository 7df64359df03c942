/**
 * The blog on Node, by hand (`npm start`, i.e. `svc serve --migrate`, does
 * the same for any app): node --import jiti/register examples/blog/runtimes/node.ts
 */
import { resolveConfig, resolveMailSettings, resolveQueueSettings } from 'svc'
import { loadEnv, maintenanceFile, openDatabase, openMailer, openQueueDriver, openTraceSink, serve } from 'svc/node'
import { resolveTraceConfig } from 'svc/trace'
import { blogApp } from './blog-app.ts'

const config = resolveConfig(loadEnv('.env'))
const traceConfig = resolveTraceConfig(config.vars)
const database = await openDatabase({ url: config.databaseUrl, authToken: config.databaseAuthToken, storageDir: 'storage', projectDir: '.' })
// As svc serve writes them (TRACE_WRITER): from a worker thread, or between requests where the process has one CPU.
const sink = await openTraceSink({ url: traceConfig.databaseUrl, storageDir: 'storage', projectDir: '.' }, traceConfig.writer)
// What only Node has: the log and SMTP mailers (MAIL_MAILER), and the redis queue driver (QUEUE_CONNECTION).
const mailer = await openMailer(resolveMailSettings(config), 'storage/logs')
const queueDriver = await openQueueDriver(resolveQueueSettings(config), database)
// `svc down` writes it (MAINTENANCE_FILE, else storage/maintenance.json): polled at most once a second.
const maintenance = maintenanceFile(config.vars.MAINTENANCE_FILE?.trim() || 'storage/maintenance.json')
const { app, tracer } = await blogApp(config, database, sink, { mailer, queueDriver, maintenance })

const server = await serve(app, {
  port: config.port,
  host: config.host,
  onClose: async () => {
    await tracer.close()
    await sink.close()
    await mailer.close?.()
    await queueDriver.close()
    database.close()
  },
})
process.once('SIGINT', () => void server.close())
process.once('SIGTERM', () => void server.close())
console.log(`svc blog on Node: ${server.url}`)
