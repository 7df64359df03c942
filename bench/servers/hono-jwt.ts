/** The peer of svc's bearer route: Hono's `jwt` middleware (HS256, the same secret) on @hono/node-server. */
import { createAdaptorServer } from '@hono/node-server'
import { Hono } from 'hono'
import { jwt, sign } from 'hono/jwt'
import type { Server } from 'node:http'
import { BENCH_JWT_SECRET } from './svc-auth.ts'
import { HELLO_BODY, listen, type BenchServer } from './types.ts'

export async function startHonoJwtServer(): Promise<BenchServer> {
  const app = new Hono()
  app.get('/protected', jwt({ secret: BENCH_JWT_SECRET, alg: 'HS256' }), (c) => c.json(HELLO_BODY))
  const now = Math.floor(Date.now() / 1000)
  const token = await sign({ sub: '1', iat: now, exp: now + 86_400 }, BENCH_JWT_SECRET, 'HS256')
  const server = await listen(createAdaptorServer({ fetch: app.fetch }) as Server)
  return { ...server, headers: { authorization: `Bearer ${token}` } }
}
