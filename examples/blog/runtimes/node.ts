/**
 * The blog on Node, by hand (`npm start`, i.e. `svc serve --migrate`, does
 * the same for any app): node --import jiti/register examples/blog/runtimes/node.ts
 */
import { loadEnv, openDatabase, serve, workerTraceSink } from 'svc/node'
import { blogApp } from './blog-app.ts'

const env = loadEnv('.env')
const database = await openDatabase({ url: env.DATABASE_URL, storageDir: 'storage', projectDir: '.' })
// Node writes the traces from a worker thread: no request waits for the trace store.
const sink = await workerTraceSink({ url: env.TRACE_DATABASE_URL, storageDir: 'storage', projectDir: '.' })
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
