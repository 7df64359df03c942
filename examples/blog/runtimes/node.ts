/**
 * The blog on Node, by hand (`npm start`, i.e. `svc serve --migrate`, does
 * the same for any app): node --import jiti/register examples/blog/runtimes/node.ts
 */
import { pendingApp, resolveConfig, resolveMailSettings, resolveQueueSettings, withServedUrl } from 'svc'
import { loadEnv, maintenanceFile, openDatabase, openMailer, openQueueDriver, openTraceSink, serve } from 'svc/node'
import { resolveTraceConfig, type SvcTracer } from 'svc/trace'
import { blogApp } from './blog-app.ts'

const env = loadEnv('.env')
const config = resolveConfig(env)
const traceConfig = resolveTraceConfig(config.vars)
const database = await openDatabase({ url: config.databaseUrl, authToken: config.databaseAuthToken, storageDir: 'storage', projectDir: '.' })
// As svc serve writes them (TRACE_WRITER): from a worker thread, or between requests where the process has one CPU.
const sink = await openTraceSink({ url: traceConfig.databaseUrl, storageDir: 'storage', projectDir: '.' }, traceConfig.writer)
// What only Node has: the log and SMTP mailers (MAIL_MAILER), and the redis queue driver (QUEUE_CONNECTION).
const mailer = await openMailer(resolveMailSettings(config), 'storage/logs')
const queueDriver = await openQueueDriver(resolveQueueSettings(config), database)
// `svc down` writes it (MAINTENANCE_FILE, else storage/maintenance.json): polled at most once a second.
const maintenance = maintenanceFile(config.vars.MAINTENANCE_FILE?.trim() || 'storage/maintenance.json')
let tracer: SvcTracer | undefined

// It listens first, as svc serve does: with APP_URL unset, the links in mails name the port it got (PORT=0 too).
const pending = pendingApp()
const server = await serve(pending, {
  port: config.port,
  host: config.host,
  requestTimeoutMs: config.requestTimeoutMs,
  onClose: async () => {
    await tracer?.close()
    await sink.close()
    await mailer.close?.()
    await queueDriver.close()
    database.close()
  },
})
try {
  const blog = await blogApp(resolveConfig(withServedUrl(env, server)), database, sink, { mailer, queueDriver, maintenance })
  tracer = blog.tracer
  pending.ready(blog.app)
} catch (error) {
  pending.failed(error)
  await server.close()
  throw error
}
process.once('SIGINT', () => void server.close())
process.once('SIGTERM', () => void server.close())
console.log(`svc blog on Node: ${server.url}`)
