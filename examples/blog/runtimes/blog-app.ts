/**
 * The blog as the entry files of every runtime build it (node.ts, deno.ts,
 * bun.ts, workers.ts): its routes, the auth routes, a tracer writing to the
 * sink it is given, and its migrations (bundled by `svc migrate:bundle`)
 * applied on start.
 */
import { authPlugin, consoleMailer, createApp, migrate, resolveConfig, type App, type Database, type EnvRecord } from 'svc'
import { createTracer, resolveTraceConfig, type SvcTracer, type TraceSink } from 'svc/trace'
import migrations from '../database/migrations/index.ts'
import api from '../routes/api.ts'
import web from '../routes/web.ts'

export interface BlogApp {
  app: App
  tracer: SvcTracer
}

export async function blogApp(env: EnvRecord, database: Database, traces: TraceSink): Promise<BlogApp> {
  await migrate(database, migrations)
  const config = resolveConfig(env)
  const tracer = createTracer({ sink: traces, config: resolveTraceConfig(env) })
  // Mails (verification, password reset) go to the console here; give a real Mailer in production.
  const plugins = [authPlugin({ mailer: consoleMailer() }), tracer.plugin]
  return { app: createApp({ config, database, api, web, tracer, plugins }), tracer }
}
