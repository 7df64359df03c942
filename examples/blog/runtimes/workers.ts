/**
 * The blog on Cloudflare Workers: `npm run start:workerd` (Miniflare, with
 * D1 kept in storage/workerd), or `wrangler dev` / `wrangler deploy` with
 * examples/blog/runtimes/wrangler.toml. D1 holds the app's tables (binding
 * DB) and the traces (binding TRACES); the migrations come bundled
 * (`svc migrate:bundle`) and run on the isolate's first request. No
 * `nodejs_compat`: the framework needs no Node API here.
 */
import { d1Database, stringVars, workersHandler, type D1DatabaseBinding } from 'svc/workers'
import { storeSink, TraceStore } from 'svc/trace'
import { blogApp } from './blog-app.ts'

export interface Env {
  DB: D1DatabaseBinding
  TRACES: D1DatabaseBinding
  /** `[vars]` and secrets (JWT_SECRET: `wrangler secret put JWT_SECRET`). */
  [name: string]: unknown
}

export default workersHandler<Env>(async (env) => {
  const traces = new TraceStore(d1Database(env.TRACES))
  await traces.init()
  // The tracer writes each request's trace through ctx.waitUntil: no timer runs after a Worker's response.
  return blogApp(stringVars(env), d1Database(env.DB), storeSink(traces))
})
