/**
 * The blog on Cloudflare Workers: `npm run start:workerd` (Miniflare, with
 * D1 kept in storage/workerd), or `wrangler dev` / `wrangler deploy` with
 * examples/blog/runtimes/wrangler.toml. D1 holds the app's tables (binding
 * DB) and the traces (binding TRACES); the migrations come bundled
 * (`svc migrate:bundle`) and run on the isolate's first request. No
 * `nodejs_compat`: the framework needs no Node API here.
 */
import { ConfigError, resolveConfig } from 'svc'
import { d1Database, stringVars, workersHandler, type D1DatabaseBinding } from 'svc/workers'
import { storeSink, TraceStore } from 'svc/trace'
import { blogApp } from './blog-app.ts'

export interface Env {
  DB: D1DatabaseBinding
  TRACES: D1DatabaseBinding
  /** `[vars]` and secrets (JWT_SECRET: `wrangler secret put JWT_SECRET`; for `wrangler dev`, .dev.vars). */
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
  return blogApp(config, d1Database(env.DB), storeSink(traces))
})
