/**
 * The blog on Node, by hand (`npm start`, i.e. `svc serve --migrate`, does
 * the same for any app): node --import jiti/register examples/blog/runtimes/node.ts
 */
import { loadEnv, openDatabase, openTraceSink, serve } from 'svc/node'
import { resolveTraceConfig } from 'svc/trace'
import { blogApp } from './blog-app.ts'

const env = loadEnv('.env')
const database = await openDatabase({ url: env.DATABASE_URL, storageDir: 'storage', projectDir: '.' })
// As svc serve writes them (TRACE_WRITER): from a worker thread, or between requests where the process has one CPU.
const sink = await openTraceSink({ url: env.TRACE_DATABASE_URL, storageDir: 'storage', projectDir: '.' }, resolveTraceConfig(env).writer)
const { app, tracer } = await blogApp(env, database, sink)

const server = await serve(app, {
  port: Number(env.PORT ?? 8080),
  host: env.HOST ?? '127.0.0.1',
  onClose: async () => {
    await tracer.close()
    await sink.close()
    database.close()
  },
})
process.once('SIGINT', () => void server.close())
process.once('SIGTERM', () => void server.close())
console.log(`svc blog on Node: ${server.url}`)
