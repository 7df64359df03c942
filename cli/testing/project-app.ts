/**
 * `svc/testing/project`: the app of the project a test runs in, built as
 * `svc` builds it (routes, kernel, listeners, auth), on a fresh database of
 * its own with every migration applied, to call in process. What the tests
 * `svc make:crud` and `svc make:test` write use.
 *
 * @example
 * const t = await projectTestApp()
 * const token = await t.tokenFor({ role: 'admin' })
 * const response = await t.client.get('/api/v1/products', { token })
 * await t.close()
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { migrate, type App, type AppConfig, type Database, type EnvRecord } from '../../framework/index.ts'
import { generateSecret, loadEnv } from '../../framework/node/index.ts'
import { createTestClient, type TestClient } from '../../framework/testing/index.ts'
import { loadApp } from '../project/load-app.ts'
import { loadMigrations, runSeeders } from '../project/migrations.ts'
import { findProject, type Project } from '../project/project.ts'
import { signAccessToken } from '../trace/sign-as.ts'

export interface ProjectTestAppOptions {
  /** The project folder (default: the current folder, where the test runner runs). */
  root?: string
  /** Settings on top of the project's `.env` (`APP_ENV` is `test`, `QUEUE_CONNECTION` is `sync` unless given; the database is always a fresh one). */
  env?: EnvRecord
  /** Runs the seeders (database/seeders) after the migrations. */
  seed?: boolean
}

export interface TestUser {
  email?: string
  name?: string
  /** `user` unless given. */
  role?: string
}

export interface ProjectTestApp {
  app: App
  config: AppConfig
  db: Database
  /** Requests through `app.fetch`, without a server. */
  client: TestClient
  /** An access token for a user of the test database, created on first use (no password: they cannot log in). */
  tokenFor(user?: TestUser): Promise<string>
  /** Closes the database and deletes it. */
  close(): Promise<void>
}

export async function projectTestApp(options: ProjectTestAppOptions = {}): Promise<ProjectTestApp> {
  const project: Project = findProject(options.root ?? process.cwd(), process.env)
  const dir = mkdtempSync(join(tmpdir(), 'svc-test-db-'))
  const settings = loadEnv(project.envFile, project.env)
  const overrides: EnvRecord = {
    APP_ENV: 'test',
    // A fresh secret unless the project or the test sets one: a checkout without .env runs its tests too.
    JWT_SECRET: settings.JWT_SECRET ?? generateSecret(),
    // Jobs and queued listeners run when dispatched, so a test sees their effects at once.
    QUEUE_CONNECTION: 'sync',
    ...options.env,
    DATABASE_URL: `file:${join(dir, 'database.sqlite')}`,
    DATABASE_AUTH_TOKEN: '',
  }
  const loaded = await loadApp(project, { overrides, trace: false })
  const db = loaded.database!
  try {
    await migrate(db, await loadMigrations(project))
    if (options.seed === true) await runSeeders(project, db)
  } catch (error) {
    await loaded.close()
    rmSync(dir, { recursive: true, force: true })
    throw error
  }
  return {
    app: loaded.app,
    config: loaded.config,
    db,
    client: createTestClient(loaded.app),
    async tokenFor(user = {}) {
      const role = user.role ?? 'user'
      const email = user.email ?? `${role}@example.test`
      try {
        await db.execute("insert or ignore into users (name, email, password, role) values (?, ?, '!', ?)", [user.name ?? role, email, role])
      } catch (error) {
        throw new Error(`tokenFor needs the users table, which the project's migrations do not create: run svc make:auth (${(error as Error).message})`, { cause: error })
      }
      return signAccessToken(project, loaded.config, db, { email })
    },
    async close() {
      await loaded.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
