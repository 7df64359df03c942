/** The peer: Hono (its default SmartRouter) on @hono/node-server. */
import { createAdaptorServer } from '@hono/node-server'
import { Hono } from 'hono'
import type { Server } from 'node:http'
import { HELLO_BODY, listen, userBody, type BenchServer } from './types.ts'

export function honoApp(): Hono {
  const app = new Hono()
  app.get('/hello', (c) => c.json(HELLO_BODY))
  app.get('/users/:id{[0-9]+}', (c) => c.json(userBody(c.req.param('id'))))
  return app
}

export function startHonoServer(): Promise<BenchServer> {
  return listen(createAdaptorServer({ fetch: honoApp().fetch }) as Server)
}
