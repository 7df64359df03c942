/**
 * The blog on Bun: `npm run start:bun`, or
 * bun run examples/blog/runtimes/bun.ts (Bun loads .env itself)
 */
import { openDatabase, openTraceStore, readEnv, serve } from 'svc/bun'
import { storeSink } from 'svc/trace'
import { blogApp } from './blog-app.ts'

const env = readEnv()
const database = await openDatabase({ url: env.DATABASE_URL ?? 'file:storage/database.sqlite' })
const traces = await openTraceStore({ url: env.TRACE_DATABASE_URL ?? 'file:storage/traces.sqlite' })
// The runtime's libSQL client is asynchronous: the traces are written from this thread, between requests.
const { app, tracer } = await blogApp(env, database, storeSink(traces))

const server = serve(app, {
  port: Number(env.PORT ?? 8080),
  host: env.HOST ?? '127.0.0.1',
  // On SIGINT/SIGTERM, after the in-flight requests: every accepted trace is written, then the stores close.
  onClose: async () => {
    await tracer.close()
    traces.close()
    database.close()
  },
})
console.log(`svc blog on Bun: ${server.url}`)
