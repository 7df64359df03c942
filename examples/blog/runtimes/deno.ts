/**
 * The blog on Deno: `npm run start:deno`, or
 * deno run --env-file=.env --allow-env --allow-net=127.0.0.1 --allow-read=. --allow-write=storage \
 *   --allow-ffi --allow-sys=cpus,networkInterfaces,hostname examples/blog/runtimes/deno.ts
 * (the permissions: docs/runtimes.md, "Deno")
 */
import { resolveConfig } from 'svc'
import { openDatabase, openTraceStore, readEnv, serve } from 'svc/deno'
import { resolveTraceConfig, storeSink } from 'svc/trace'
import { blogApp } from './blog-app.ts'

// Read as svc serve reads it: a blank value (`DATABASE_URL=` in the .env `npm start` writes) is unset.
const config = resolveConfig(readEnv())
const database = await openDatabase({ url: config.databaseUrl ?? 'file:storage/database.sqlite', authToken: config.databaseAuthToken })
const traces = await openTraceStore({ url: resolveTraceConfig(config.vars).databaseUrl ?? 'file:storage/traces.sqlite' })
// The runtime's libSQL client is asynchronous: the traces are written from this thread, between requests.
const { app, tracer } = await blogApp(config, database, storeSink(traces))

const server = serve(app, {
  port: config.port,
  host: config.host,
  // On SIGINT/SIGTERM, after the in-flight requests: every accepted trace is written, then the stores close.
  onClose: async () => {
    await tracer.close()
    traces.close()
    database.close()
  },
})
console.log(`svc blog on Deno: ${server.url}`)
