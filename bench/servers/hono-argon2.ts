/**
 * The peer of svc's password routes: Hono on @hono/node-server with the same
 * native argon2id (@node-rs/argon2, m=19 MiB, t=2, p=1), the same libSQL
 * file database and tables, and Hono's own JWT signing. It does what a
 * hand-written register/login does: hash or verify, one read or insert of the
 * user, two signed tokens, the refresh token's hash stored. No bound on
 * hashes in flight, no lockout, no verification token: less than svc does.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Server } from 'node:http'
import { createAdaptorServer } from '@hono/node-server'
import { createClient } from '@libsql/client'
import { hash, verify } from '@node-rs/argon2'
import { Hono } from 'hono'
import { sign } from 'hono/jwt'
import { AUTH_MIGRATION_SOURCES } from '../../cli/project/migration-file.ts'
import { BENCH_JWT_SECRET } from './svc-auth.ts'
import { BENCH_EMAIL, BENCH_PASSWORD, listen, type BenchServer } from './types.ts'

const ARGON2 = { memoryCost: 19_456, timeCost: 2, parallelism: 1 }

export async function startHonoArgon2Server(): Promise<BenchServer> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-hono-'))
  const db = createClient({ url: `file:${join(dir, 'database.sqlite')}`, timeout: 5000, intMode: 'number' })
  await db.execute('pragma journal_mode = wal')
  for (const source of AUTH_MIGRATION_SOURCES) for (const sql of source.up) await db.execute(sql)

  const sha256 = async (text: string) => Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))).toString('hex')
  async function tokenPair(userId: number) {
    const now = Math.floor(Date.now() / 1000)
    const [token, refresh] = await Promise.all([
      sign({ sub: userId, iat: now, exp: now + 3600, jti: crypto.randomUUID(), typ: 'access' }, BENCH_JWT_SECRET, 'HS256'),
      sign({ sub: userId, iat: now, exp: now + 604_800, jti: crypto.randomUUID(), typ: 'refresh' }, BENCH_JWT_SECRET, 'HS256'),
    ])
    const created = new Date().toISOString()
    await db.execute('insert into refresh_tokens (id, user_id, family_id, token_hash, expires_at, created_at) values (?, ?, ?, ?, ?, ?)', [
      crypto.randomUUID(),
      userId,
      crypto.randomUUID(),
      await sha256(refresh),
      new Date((now + 604_800) * 1000).toISOString(),
      created,
    ])
    return { token, refresh_token: refresh, token_type: 'Bearer', expires_in: 3600 }
  }

  const app = new Hono()
  app.post('/api/auth/register', async (c) => {
    const body = await c.req.json<{ name: string; email: string; password: string; password_confirmation: string }>()
    if (typeof body.email !== 'string' || body.password !== body.password_confirmation) return c.json({ success: false }, 422)
    const password = await hash(body.password, ARGON2)
    const now = new Date().toISOString()
    const result = await db.execute('insert into users (name, email, password, created_at, updated_at) values (?, ?, ?, ?, ?) returning id', [
      body.name,
      body.email.trim().toLowerCase(),
      password,
      now,
      now,
    ])
    const id = Number(result.rows[0]!.id)
    return c.json({ success: true, message: 'User registered successfully', data: { ...(await tokenPair(id)), user: { id, name: body.name, email: body.email } } }, 201)
  })
  app.post('/api/auth/login', async (c) => {
    const body = await c.req.json<{ email: string; password: string }>()
    const row = (await db.execute('select id, name, email, password from users where email = ?', [String(body.email).toLowerCase()])).rows[0]
    if (row === undefined || !(await verify(String(row.password), body.password))) return c.json({ success: false, error: 'Invalid credentials' }, 401)
    const id = Number(row.id)
    return c.json({ success: true, message: 'Login successful', data: { ...(await tokenPair(id)), user: { id, name: row.name, email: row.email } } })
  })

  const seeded = await app.request('/api/auth/register', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Bench', email: BENCH_EMAIL, password: BENCH_PASSWORD, password_confirmation: BENCH_PASSWORD }),
  })
  if (seeded.status !== 201) throw new Error(`hono bench user registration failed: ${seeded.status}`)
  const server = await listen(createAdaptorServer({ fetch: app.fetch }) as Server)
  return {
    ...server,
    headers: { 'content-type': 'application/json' },
    close: async () => {
      await server.close()
      db.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
