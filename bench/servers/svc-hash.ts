/**
 * svc's password routes as served by the `svc` CLI: the auth plugin with
 * OWASP argon2id (m=19 MiB, t=2, p=1), the native hasher (@node-rs/argon2)
 * or the portable one (@noble/hashes), a libSQL file database. Register and
 * login are not throttled here (the benchmark sends from one address), and
 * mails go nowhere. One user, `bench@example.com`, exists for the login runs.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { authMigrations, authPlugin, createApp, migrate, resolveConfig } from 'svc'
import { nativeArgon2id, openDatabase, serve } from 'svc/node'
import { BENCH_JWT_SECRET } from './svc-auth.ts'
import { BENCH_EMAIL, BENCH_HOST, BENCH_PASSWORD, type BenchServer, type ServerOptions } from './types.ts'

export async function startSvcHashServer(options: ServerOptions): Promise<BenchServer> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-hash-'))
  const database = await openDatabase({ storageDir: dir, projectDir: dir })
  await migrate(database, authMigrations)
  const app = createApp({
    config: resolveConfig({
      APP_ENV: 'production',
      JWT_SECRET: BENCH_JWT_SECRET,
      AUTH_REGISTER_THROTTLE: '1000000,1',
      AUTH_LOGIN_THROTTLE: '1000000,1',
      // The default queue (32) would refuse part of a 100-registration burst; the memory check counts those apart.
      ...(typeof options.queue === 'number' ? { PASSWORD_HASH_QUEUE: String(options.queue) } : {}),
    }),
    database,
    plugins: [
      authPlugin({
        ...(options.argon2 === 'portable' ? {} : { argon2id: nativeArgon2id }),
        mailer: { name: 'none', send: async () => {} },
      }),
    ],
  })
  const registered = await app.fetch(
    new Request(`http://${BENCH_HOST}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Bench', email: BENCH_EMAIL, password: BENCH_PASSWORD, password_confirmation: BENCH_PASSWORD }),
    }),
  )
  if (registered.status !== 201) throw new Error(`bench user registration failed: ${registered.status} ${await registered.text()}`)
  const server = await serve(app, { port: 0, host: BENCH_HOST })
  return {
    port: server.port,
    headers: { 'content-type': 'application/json' },
    close: async () => {
      await server.close()
      database.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
