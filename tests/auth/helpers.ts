/** A fresh app with auth on a temporary SQLite file, a movable clock and an in-memory mailer. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  apiKeysMigration,
  authMigrations,
  authPlugin,
  createApp,
  memoryMailer,
  migrate,
  resolveConfig,
  type App,
  type AuthPluginOptions,
  type Database,
  type EnvRecord,
  type KernelOptions,
  type MemoryMailer,
  type RouteDefinition,
} from 'svc'
import { openDatabase } from 'svc/node'
import { createTestClient, type TestClient } from 'svc/testing'

export const SECRET = 'test-secret-that-is-at-least-32-characters-long'
export const PASSWORD = 'correct horse battery staple'

/** Cheap argon2id for tests: configuration only, the code path is the production one. */
export const TEST_ENV: EnvRecord = {
  APP_ENV: 'test',
  APP_DEBUG: 'false',
  JWT_SECRET: SECRET,
  PASSWORD_HASH_MEMORY_KIB: '64',
  PASSWORD_HASH_ITERATIONS: '1',
  PASSWORD_HASH_PARALLELISM: '1',
  // Tests register hundreds of users from one address; the default limit (10 a minute) has its own test.
  AUTH_REGISTER_THROTTLE: '10000,1',
}

export interface TestClock {
  now(): number
  set(ms: number): void
  advance(ms: number): void
}

export function testClock(start = Date.UTC(2026, 0, 1, 12, 0, 0)): TestClock {
  let current = start
  return {
    now: () => current,
    set: (ms) => {
      current = ms
    },
    advance: (ms) => {
      current += ms
    },
  }
}

export interface AuthTestApp {
  app: App
  client: TestClient
  db: Database
  clock: TestClock
  mailer: MemoryMailer
  dir: string
  close(): Promise<void>
}

/** Opens a temporary database (migrated), builds the app. Close it in afterAll/afterEach. */
export async function openTestDatabase(): Promise<{ db: Database; dir: string; url: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-auth-'))
  const url = `file:${join(dir, 'database.sqlite')}`
  const db = await openDatabase({ url, storageDir: dir, projectDir: dir })
  await migrate(db, [...authMigrations, apiKeysMigration])
  return { db, dir, url }
}

export async function createAuthTestApp(
  options: {
    env?: EnvRecord
    api?: RouteDefinition
    web?: RouteDefinition
    plugin?: AuthPluginOptions
    kernel?: KernelOptions
    database?: { db: Database; dir: string }
  } = {},
): Promise<AuthTestApp> {
  const opened = options.database ?? (await openTestDatabase())
  const clock = testClock()
  const mailer = memoryMailer()
  const app = createApp({
    ...options.kernel,
    config: resolveConfig({ ...TEST_ENV, ...options.env }),
    database: opened.db,
    api: options.api,
    web: options.web,
    plugins: [authPlugin({ mailer, clock, ...options.plugin })],
  })
  return {
    app,
    client: createTestClient(app),
    db: opened.db,
    clock,
    mailer,
    dir: opened.dir,
    async close() {
      opened.db.close()
      rmSync(opened.dir, { recursive: true, force: true })
    },
  }
}

let counter = 0

/** Registers a fresh user; returns the token pair and the user. */
export async function registerUser(
  client: TestClient,
  overrides: { name?: string; email?: string; password?: string } = {},
  clientAddress?: string,
) {
  counter++
  const email = overrides.email ?? `user${counter}-${Math.random().toString(36).slice(2, 8)}@example.com`
  const password = overrides.password ?? PASSWORD
  const response = await client.post('/api/auth/register', {
    json: { name: overrides.name ?? `User ${counter}`, email, password, password_confirmation: password },
    ...(clientAddress === undefined ? {} : { clientAddress }),
  })
  if (response.status !== 201) throw new Error(`register failed: ${response.status} ${JSON.stringify(response.body)}`)
  return {
    email,
    password,
    id: response.body.data.user.id as number,
    token: response.body.data.token as string,
    refreshToken: response.body.data.refresh_token as string,
    response,
  }
}
