/**
 * `svc/testing/project`: the app of the project a test runs in, built as
 * `svc` builds it (routes, kernel, listeners, auth), on a fresh database of
 * its own with every migration applied, to call in process. What the tests
 * `svc new`, `svc make:crud` and `svc make:test` write use.
 *
 * A checkout has no `.env` (it is not committed): the app then gets a
 * throw-away JWT secret, or a throw-away RS256 key pair when
 * `JWT_ALGORITHM=RS256` and storage/keys/ is missing, so `npm test` needs no
 * setup. Passwords are hashed cheaply (a stored hash carries its parameters:
 * register and login behave the same, faster).
 *
 * @example
 * const t = await projectTestApp()
 * const token = await t.tokenFor({ role: 'admin' })
 * await t.tokenFor({ email: 'ada@example.test', password: 'a passphrase' })   // Ada can log in too
 * const response = await t.client.get('/api/v1/products', { token })
 * await t.close()
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createPasswordHasher, generateRsaKeyPair, migrate, resolveAuthSettings, type App, type AppConfig, type Database, type EnvRecord } from '../../framework/index.ts'
import { generateSecret, loadEnv, readJwtKeyFiles } from '../../framework/node/index.ts'
import { createTestClient, type TestClient } from '../../framework/testing/index.ts'
import { runSeeders, selectSeeders } from '../database/seed.ts'
import { processIO } from '../output/io.ts'
import { loadApp, type LoadedApp } from '../project/load-app.ts'
import { loadMigrations } from '../project/migrations.ts'
import { findProject, type Project } from '../project/project.ts'
import { signAccessToken } from '../trace/sign-as.ts'

export interface ProjectTestAppOptions {
  /** The project folder, a path or a `file:` URL (`new URL('..', import.meta.url)`); default: the current folder, where the test runner runs. */
  root?: string | URL
  /**
   * Settings on top of the project's `.env`. Set for you: `APP_ENV=test`,
   * `PASSWORD_HASH_MEMORY_KIB=64`, `PASSWORD_HASH_ITERATIONS=1`,
   * `QUEUE_CONNECTION=sync` (jobs and queued listeners run when dispatched);
   * the database is always a fresh one.
   */
  env?: EnvRecord
  /** Runs the seeders (database/seeders) after the migrations: all of them, or the ones named (`db:seed --class` names). */
  seed?: boolean | string[]
}

export interface TestUser {
  email?: string
  name?: string
  /** `user` unless given. */
  role?: string
  /**
   * A password the user can log in with (`POST /api/auth/login`), hashed with the app's `PASSWORD_HASH_*`
   * settings (cheap in tests). Given for a user that exists already, it becomes their password. Without it,
   * a new user has no password (`!`, which no password matches) and cannot log in.
   */
  password?: string
}

export interface ProjectTestApp {
  app: App
  config: AppConfig
  db: Database
  /** Requests through `app.fetch`, without a server. */
  client: TestClient
  /** An access token for a user of the test database, created on first use (with `password`, a user who can also log in). */
  tokenFor(user?: TestUser): Promise<string>
  /**
   * The mail log of this test app, in its temporary folder: every mail its requests send is appended there
   * (`MAIL_MAILER=log`, whatever `.env` says), never sent. Read it to assert a mail: `readFileSync(t.mailLog, 'utf8')`.
   */
  mailLog: string
  /** Closes the database and deletes it. */
  close(): Promise<void>
}

export async function projectTestApp(options: ProjectTestAppOptions = {}): Promise<ProjectTestApp> {
  const root = options.root instanceof URL ? fileURLToPath(options.root) : (options.root ?? process.cwd())
  const project: Project = findProject(root, process.env)
  const dir = mkdtempSync(join(tmpdir(), 'svc-test-db-'))
  let loaded: LoadedApp | undefined
  try {
    // Jobs and queued listeners run when dispatched, so a test sees their effects at once.
    // Mails are logged in the test's folder: .env's SMTP server is not a test's to use, nor the development mail log to fill.
    const settings: EnvRecord = { APP_ENV: 'test', PASSWORD_HASH_MEMORY_KIB: '64', PASSWORD_HASH_ITERATIONS: '1', QUEUE_CONNECTION: 'sync', MAIL_MAILER: 'log', ...options.env }
    const overrides: EnvRecord = {
      ...settings,
      ...(await throwAwayKeys(project, settings)),
      DATABASE_URL: `file:${join(dir, 'database.sqlite')}`,
      DATABASE_AUTH_TOKEN: '',
    }
    const logsDir = join(dir, 'logs')
    loaded = await loadApp(project, { overrides, trace: false, logsDir })
    const db = loaded.database!
    await migrate(db, await loadMigrations(project))
    if (options.seed !== undefined && options.seed !== false) {
      const names = options.seed === true ? undefined : options.seed.flatMap((name) => selectSeeders(project, name))
      await runSeeders(project, db, processIO(new AbortController().signal), names)
    }
    const { app, config, close } = loaded
    return {
      app,
      config,
      db,
      client: createTestClient(app),
      mailLog: join(logsDir, 'mail.log'),
      async tokenFor(user = {}) {
        const role = user.role ?? 'user'
        const email = user.email ?? `${role}@example.test`
        if (user.password !== undefined && user.password === '') throw new Error('tokenFor: password is empty, and login refuses an empty password: give one, or leave it out')
        const hash = user.password === undefined ? undefined : await createPasswordHasher(resolveAuthSettings(config).password).hash(user.password)
        try {
          // '!' is no argon2id hash, so no password matches it.
          await db.execute("insert or ignore into users (name, email, password, role) values (?, ?, '!', ?)", [user.name ?? role, email, role])
          if (hash !== undefined) await db.execute('update users set password = ? where email = ?', [hash, email])
        } catch (error) {
          throw new Error(`tokenFor needs the users table, which the project's migrations do not create: run svc make:auth (${(error as Error).message})`, { cause: error })
        }
        return signAccessToken(project, config, db, { email })
      },
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

/** A JWT secret or RS256 pair when the checkout has none (no `.env`, an empty secret, no storage/keys/). */
async function throwAwayKeys(project: Project, settings: EnvRecord): Promise<EnvRecord> {
  const vars = { ...loadEnv(project.envFile, project.env), ...settings }
  if ((vars.JWT_ALGORITHM || 'HS256') === 'RS256') {
    if (vars.JWT_PRIVATE_KEY || readJwtKeyFiles(project.storageDir).privateKey !== undefined) return {}
    const pair = await generateRsaKeyPair()
    return { JWT_PRIVATE_KEY: pair.privateKey, JWT_PUBLIC_KEY: pair.publicKey }
  }
  return (vars.JWT_SECRET ?? '').length >= 32 ? {} : { JWT_SECRET: generateSecret() }
}
