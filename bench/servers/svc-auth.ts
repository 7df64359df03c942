/**
 * svc with authentication on (the auth plugin, a libSQL file database with
 * the auth migrations, one registered user): `/protected` behind `auth`
 * (JWT verify, then the token_version/status read by primary key) and
 * `/open`, the same handler without it. The bearer token of that user is
 * handed to the load generator as a header.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { authMigrations, CONN_INFO, authPlugin, createApp, defineRoutes, migrate, resolveConfig } from 'svc'
import { openDatabase, serve } from 'svc/node'
import { BENCH_HOST, HELLO_BODY, type BenchServer } from './types.ts'

/** The HS256 secret both this server and the Hono jwt peer verify with. */
export const BENCH_JWT_SECRET = 'bench-secret-0123456789abcdefghijklmnopqrstuvwxyz'

export async function startSvcAuthServer(): Promise<BenchServer> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-auth-'))
  const database = await openDatabase({ storageDir: dir, projectDir: dir })
  await migrate(database, authMigrations)
  const hello = function hello() {
    return HELLO_BODY.data
  }
  const app = createApp({
    config: resolveConfig({
      APP_ENV: 'production',
      JWT_SECRET: BENCH_JWT_SECRET,
      JWT_TTL: '86400',
      // Only the one registration below hashes a password; it does not need to be slow.
      PASSWORD_HASH_MEMORY_KIB: '64',
      PASSWORD_HASH_ITERATIONS: '1',
    }),
    database,
    web: defineRoutes((r) => {
      r.get('/protected', hello).middleware('auth')
      r.get('/open', hello)
    }),
    plugins: [authPlugin()],
  })
  const registered = await app.fetch(
    new Request(`http://${BENCH_HOST}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Bench', email: 'bench@example.com', password: 'bench-password', password_confirmation: 'bench-password' }),
    }),
    { [CONN_INFO]: { remoteAddress: BENCH_HOST } },
  )
  if (registered.status !== 201) throw new Error(`bench user registration failed: ${registered.status} ${await registered.text()}`)
  const { data } = (await registered.json()) as { data: { token: string } }

  const server = await serve(app, { port: 0, host: BENCH_HOST })
  return {
    port: server.port,
    headers: { authorization: `Bearer ${data.token}` },
    close: async () => {
      await server.close()
      database.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
