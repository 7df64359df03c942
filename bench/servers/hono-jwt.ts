/**
 * The peers of svc's bearer route: Hono's `jwt` middleware (HS256, the same
 * secret) on @hono/node-server, alone (`read: false`) or, as issue 18 names
 * the peer, followed by one libSQL read of the token's user by primary key
 * (a local file, as svc's), whose status a Hono app would check the same way.
 */
import { createClient } from '@libsql/client'
import { createAdaptorServer } from '@hono/node-server'
import { Hono } from 'hono'
import { jwt, sign } from 'hono/jwt'
import { mkdtempSync, rmSync } from 'node:fs'
import type { Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BENCH_JWT_SECRET } from './svc-auth.ts'
import { HELLO_BODY, listen, type BenchServer, type ServerOptions } from './types.ts'

export async function startHonoJwtServer(options: ServerOptions): Promise<BenchServer> {
  const app = new Hono()
  const now = Math.floor(Date.now() / 1000)
  const token = await sign({ sub: '1', iat: now, exp: now + 86_400 }, BENCH_JWT_SECRET, 'HS256')
  if (options.read !== true) {
    app.get('/protected', jwt({ secret: BENCH_JWT_SECRET, alg: 'HS256' }), (c) => c.json(HELLO_BODY))
    const server = await listen(createAdaptorServer({ fetch: app.fetch }) as Server)
    return { ...server, headers: { authorization: `Bearer ${token}` } }
  }

  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-hono-jwt-'))
  const client = createClient({ url: `file:${join(dir, 'app.db')}` })
  await client.execute('pragma journal_mode = wal')
  await client.batch([
    'create table users (id integer primary key, name text not null, email text not null unique, role text not null, status integer not null, token_version integer not null)',
    "insert into users values (1, 'Bench', 'bench@example.com', 'user', 1, 0)",
  ])
  app.get('/protected', jwt({ secret: BENCH_JWT_SECRET, alg: 'HS256' }), async (c) => {
    const { sub } = c.get('jwtPayload') as { sub: string }
    const result = await client.execute({ sql: 'select id, name, email, role, status, token_version from users where id = ?', args: [Number(sub)] })
    const user = result.rows[0]
    if (user === undefined || user.status !== 1) return c.json({ success: false, error: { message: 'Unauthenticated.' } }, 401)
    return c.json(HELLO_BODY)
  })
  const server = await listen(createAdaptorServer({ fetch: app.fetch }) as Server)
  return {
    ...server,
    headers: { authorization: `Bearer ${token}` },
    close: async () => {
      await server.close()
      client.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
