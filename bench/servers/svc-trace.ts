/**
 * svc with request tracing off or on (mode all; records built on the
 * request thread and written into their own libSQL file by the writer
 * `svc serve` uses: TRACE_WRITER's, `auto` by default, which is the request
 * thread here, since the bench pins each server to one CPU): `/hello`, the
 * JSON route, and `/three`, a route that runs three queries. The tracing
 * budget: on >= 0.85x off on both (docs/traces.md).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createApp, defineRoutes, resolveConfig, type Context } from 'svc'
import { createTracer, resolveTraceConfig, type TraceSink } from 'svc/trace'
import { openDatabase, openTraceSink, serve } from 'svc/node'
import { BENCH_HOST, HELLO_BODY, type BenchServer, type ServerOptions } from './types.ts'

export interface SvcTraceServerOptions {
  trace?: boolean
  /** As `svc serve` does: TRACE_WRITER's (`auto` by default, `worker` or `thread`); or `none`: every batch dropped (capture alone). */
  sink?: 'auto' | 'thread' | 'worker' | 'none'
  /** More trace settings (`TRACE_BATCH_SIZE`...), on top of `TRACE_MODE=all`. */
  env?: Record<string, string>
}

export const THREE_QUERIES_BODY = { success: true, data: { post: { id: 1, title: 'First' }, comments: 2, tags: ['a', 'b'] } }

export async function startSvcTraceServer(raw: ServerOptions): Promise<BenchServer> {
  const options = raw as SvcTraceServerOptions
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-trace-'))
  const database = await openDatabase({ storageDir: dir, projectDir: dir })
  await database.batch([
    'create table posts (id integer primary key, title text not null)',
    'create table comments (id integer primary key, post_id integer not null, body text not null)',
    'create table tags (post_id integer not null, name text not null)',
    "insert into posts (id, title) values (1, 'First')",
    "insert into comments (post_id, body) values (1, 'one'), (1, 'two')",
    "insert into tags (post_id, name) values (1, 'a'), (1, 'b')",
  ])
  const config = resolveTraceConfig({ TRACE_MODE: 'all', ...options.env })
  let sink: (TraceSink & { close?: () => Promise<void> }) | undefined
  if (options.trace) {
    const kind = options.sink ?? config.writer
    sink = kind === 'none' ? { write: async () => {}, prune: async () => 0 } : await openTraceSink({ storageDir: dir, projectDir: dir }, kind)
  }
  const tracer = sink === undefined ? undefined : createTracer({ sink, config })

  const app = createApp({
    config: resolveConfig({ APP_ENV: 'production' }),
    database,
    tracer,
    plugins: tracer === undefined ? [] : [tracer.plugin],
    web: defineRoutes((r) => {
      r.get('/hello', function hello() {
        return HELLO_BODY.data
      })
      r.get('/three', async function three(c: Context) {
        const post = await c.db.execute('select id, title from posts where id = ?', [1])
        const comments = await c.db.execute('select count(*) as n from comments where post_id = ?', [1])
        const tags = await c.db.execute('select name from tags where post_id = ? order by name', [1])
        return { post: post.rows[0], comments: Number(comments.rows[0]!.n), tags: tags.rows.map((row) => row.name) }
      })
    }),
  })
  const server = await serve(app, {
    port: 0,
    host: BENCH_HOST,
    onClose: async () => {
      await tracer?.close()
      await sink?.close?.()
    },
  })
  return {
    port: server.port,
    close: async () => {
      await server.close()
      database.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
