/**
 * The blog on Deno: `npm run start:deno`, or
 * deno run --env-file=.env --allow-env --allow-net=127.0.0.1 --allow-read=. --allow-write=storage \
 *   --allow-ffi --allow-sys=cpus,networkInterfaces,hostname examples/blog/runtimes/deno.ts
 * (the permissions: docs/runtimes.md, "Deno")
 */
import { pendingApp, resolveConfig, withServedUrl, type Database } from 'svc'
import { maintenanceFile, openDatabase, openTraceStore, readEnv, serve } from 'svc/deno'
import { resolveTraceConfig, storeSink, type SvcTracer } from 'svc/trace'
import { blogApp } from './blog-app.ts'

// Read as svc serve reads it: a blank value (`DATABASE_URL=` in the .env `npm start` writes) is unset.
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
  database = await openDatabase({ url: served.databaseUrl ?? 'file:storage/database.sqlite', authToken: served.databaseAuthToken })
  traces = await openTraceStore({ url: resolveTraceConfig(served.vars).databaseUrl ?? 'file:storage/traces.sqlite' })
  // The runtime's libSQL client is asynchronous: the traces are written from this thread, between requests.
  // `svc down` writes it (MAINTENANCE_FILE, else storage/maintenance.json), as svc serve reads it: polled at most once a second.
  const maintenance = maintenanceFile(served.vars.MAINTENANCE_FILE?.trim() || 'storage/maintenance.json')
  const blog = await blogApp(served, database, storeSink(traces), { maintenance })
  tracer = blog.tracer
  pending.ready(blog.app)
} catch (error) {
  pending.failed(error)
  await server.close()
  throw error
}
console.log(`svc blog on Deno: ${server.url}`)
