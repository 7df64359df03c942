/**
 * The peer: Hono (its default SmartRouter) on @hono/node-server. With
 * `traceHeader`, every response carries a fresh id in `X-Service-Trace-Id`
 * as svc's do (issue 18's peer: "the same JSON with a trace header"), set by
 * the lightest middleware a Hono user would write for it: no read of an
 * incoming id, which would make @hono/node-server build the request's Headers
 * (Hono's own `requestId` middleware does, and costs more).
 */
import { createAdaptorServer } from '@hono/node-server'
import { Hono } from 'hono'
import type { Server } from 'node:http'
import { HELLO_BODY, listen, userBody, type BenchServer, type ServerOptions } from './types.ts'

export interface HonoServerOptions {
  traceHeader?: boolean
}

export function honoApp(options: HonoServerOptions = {}): Hono {
  const app = new Hono()
  if (options.traceHeader) {
    app.use(async (c, next) => {
      c.header('X-Service-Trace-Id', `svc_${crypto.randomUUID()}`)
      await next()
    })
  }
  app.get('/hello', (c) => c.json(HELLO_BODY))
  app.get('/users/:id{[0-9]+}', (c) => c.json(userBody(c.req.param('id'))))
  return app
}

export function startHonoServer(options: ServerOptions = {}): Promise<BenchServer> {
  return listen(createAdaptorServer({ fetch: honoApp(options as HonoServerOptions).fetch }) as Server)
}
