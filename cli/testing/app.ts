/**
 * `svc/testing/app`: a project's own app for its tests, built the way `svc
 * serve` builds it (routes, app/kernel.ts, the built-in auth and health
 * routes) on a fresh, migrated database in a temporary folder, with a test
 * client (`svc/testing`'s `createTestClient`) that calls `app.fetch` without
 * a server.
 *
 * A fresh clone has no `.env`: the app then gets a throw-away JWT secret (or
 * RS256 key pair), so `npm test` needs no setup.
 *
 * @example
 * const api = await testApp()                  // the project npm test runs in
 * afterAll(() => api.close())
 * const { status } = await api.client.get('/health/ready')
 * const admin = await api.createUser({ role: 'admin' })
 * await api.client.delete('/api/v1/posts/1', { token: admin.token })
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createPasswordHasher, generateRsaKeyPair, migrate, type App, type Database } from '../../framework/index.ts'
import { generateSecret, loadEnv, readJwtKeyFiles } from '../../framework/node/index.ts'
import { createTestClient, type TestClient } from '../../framework/testing/index.ts'
import { runSeeders, selectSeeders } from '../database/seed.ts'
import { processIO } from '../output/io.ts'
import { loadApp, type LoadedApp } from '../project/load-app.ts'
import { loadMigrations } from '../project/migrations.ts'
import { findProject, type Project } from '../project/project.ts'
import { signAccessToken } from '../trace/sign-as.ts'

export interface TestAppOptions {
  /** The project folder: a path or a `file:` URL (`new URL('..', import.meta.url)`); default the current folder, where `npm test` runs. */
  root?: string | URL
  /**
   * Values over the project's `.env` and the environment. Set for you:
   * `APP_ENV=test`, the temporary `DATABASE_URL`, and cheap password hashing
   * (`PASSWORD_HASH_MEMORY_KIB=64`, `PASSWORD_HASH_ITERATIONS=1`: a stored
   * hash carries its parameters, so logins work the same).
   */
  env?: Record<string, string>
  /** Run the seeders after migrating: all of them, or the named ones (`db:seed --class` names). */
  seed?: boolean | string[]
}

export interface TestUser {
  id: number
  name: string
  email: string
  password: string
  role: string
  /** An access token, as login would return it. */
  token: string
}

export interface TestApp {
  app: App
  /** `client.get('/api/v1/posts')`, `client.post(path, { json, token })`: see `svc/testing`. */
  client: TestClient
  /** The test database (migrated, seeded when asked). */
  db: Database
  project: Project
  /** Inserts a user (role `user` unless given) and signs an access token for it. */
  createUser(fields?: Partial<Pick<TestUser, 'name' | 'email' | 'password' | 'role'>>): Promise<TestUser>
  /** A fresh access token for an existing user. */
  tokenFor(email: string): Promise<string>
  /** Closes the database and deletes the temporary folder. */
  close(): Promise<void>
}

// Test users need a password hash, not a slow one: the stored parameters are what login verifies with.
const TEST_HASHER = createPasswordHasher({ memoryKib: 64, iterations: 1, parallelism: 1 })

export async function testApp(options: TestAppOptions = {}): Promise<TestApp> {
  const root = options.root instanceof URL ? fileURLToPath(options.root) : (options.root ?? process.cwd())
  const project = findProject(root, process.env)
  const dir = mkdtempSync(join(tmpdir(), 'svc-test-app-'))
  let loaded: LoadedApp | undefined
  try {
    const env = { APP_ENV: 'test', DATABASE_URL: `file:${join(dir, 'test.sqlite')}`, PASSWORD_HASH_MEMORY_KIB: '64', PASSWORD_HASH_ITERATIONS: '1', ...options.env }
    const overrides = { ...env, ...(await testKeys(project, env)) }
    loaded = await loadApp(project, { overrides, trace: false })
    const db = loaded.database!
    await migrate(db, await loadMigrations(project))
    if (options.seed !== undefined && options.seed !== false) {
      const names = options.seed === true ? undefined : options.seed.flatMap((name) => selectSeeders(project, name))
      await runSeeders(project, db, processIO(new AbortController().signal), names)
    }
    const { app, config } = loaded
    const close = loaded.close
    let users = 0
    return {
      app,
      client: createTestClient(app),
      db,
      project,
      async createUser(fields = {}) {
        users++
        const user = { name: `Test User ${users}`, email: `user${users}@example.test`, password: `password-${users}-${crypto.randomUUID()}`, role: 'user', ...fields }
        const row = await db.first<{ id: number }>('insert into users (name, email, password, role) values (?, ?, ?, ?) returning id', [
          user.name,
          user.email,
          await TEST_HASHER.hash(user.password),
          user.role,
        ])
        return { id: Number(row!.id), ...user, token: await signAccessToken(project, config, db, { email: user.email }) }
      },
      tokenFor: (email) => signAccessToken(project, config, db, { email }),
      async close() {
        try {
          await close()
        } finally {
          rmSync(dir, { recursive: true, force: true })
        }
      },
    }
  } catch (error) {
    await loaded?.close()
    rmSync(dir, { recursive: true, force: true })
    throw error
  }
}

/** A throw-away JWT secret or RS256 pair when the project has none (a fresh clone without `.env` or storage/keys/). */
async function testKeys(project: Project, overrides: Record<string, string>): Promise<Record<string, string>> {
  const vars = { ...loadEnv(project.envFile, process.env), ...overrides }
  if ((vars.JWT_ALGORITHM ?? 'HS256') === 'RS256') {
    if (vars.JWT_PRIVATE_KEY !== undefined || readJwtKeyFiles(project.storageDir).privateKey !== undefined) return {}
    const pair = await generateRsaKeyPair()
    return { JWT_PRIVATE_KEY: pair.privateKey, JWT_PUBLIC_KEY: pair.publicKey }
  }
  return (vars.JWT_SECRET ?? '').length >= 32 ? {} : { JWT_SECRET: generateSecret() }
}
