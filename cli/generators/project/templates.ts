/**
 * The files of a new project (`svc new`, `svc start`), as typed template
 * functions returning `{ path, contents }` (nuxt-cli style), like the make:*
 * kinds (../templates/), but taking the project's settings rather than a
 * name: each says nothing about where or how it is written (create.ts does).
 */
import { AUTH_MIGRATION_SOURCES, renderMigrationFile } from '../../project/migration-file.ts'
import type { GeneratedFile } from '../template.ts'
import { RUNTIME_SCRIPTS, RUNTIME_TEMPLATES, workerName } from './runtime-templates.ts'

/** A generated file (relative to the project folder), with its mode where it matters. */
export interface ProjectFile extends GeneratedFile {
  /** 0o600 for `.env`. */
  mode?: number
}

export interface ProjectSettings {
  /** The package name (and folder name). */
  name: string
  /** What package.json's `svc` dependency says: `^<svc's version>` unless told otherwise. */
  svcSpec: string
  /** Version ranges of what the project installs besides svc, taken from svc's own package.json. */
  versions: { valibot: string; vitest: string; typescript: string; typesNode: string }
  /** '' for the embedded SQLite file. */
  databaseUrl: string
  jwtAlgorithm: 'HS256' | 'RS256'
  /** The fresh JWT_SECRET written to `.env`. */
  secret: string
  /** RS256: the fresh key pair written to storage/keys/ (and to .dev.vars, for wrangler dev). */
  jwtKeys?: { privateKey: string; publicKey: string }
  /** `npm run dev`: `svc live` where svc has it, else `svc serve --migrate`. */
  devCommand: string
}

export type ProjectTemplate = (settings: ProjectSettings) => ProjectFile | ProjectFile[]

export const packageJson: ProjectTemplate = (s) => ({
  path: 'package.json',
  contents: `${JSON.stringify(
    {
      name: s.name,
      version: '0.1.0',
      private: true,
      type: 'module',
      engines: { node: '>=20.19' },
      scripts: {
        start: 'svc serve --migrate',
        dev: s.devCommand,
        test: 'vitest run',
        typecheck: 'tsc --noEmit',
        svc: 'svc',
        ...RUNTIME_SCRIPTS,
      },
      dependencies: { svc: s.svcSpec, valibot: s.versions.valibot },
      devDependencies: { '@types/node': s.versions.typesNode, typescript: s.versions.typescript, vitest: s.versions.vitest },
    },
    null,
    2,
  )}\n`,
})

/** A project's tsconfig.json: strict, NodeNext, `.ts` imports (svc runs the TypeScript files as they are; tsc only checks). */
export const PROJECT_TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    lib: ['ES2023', 'DOM', 'DOM.Iterable'],
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    allowImportingTsExtensions: true,
    noEmit: true,
    verbatimModuleSyntax: true,
    isolatedModules: true,
    skipLibCheck: true,
    types: ['node'],
  },
  // Every folder an app or its generators write TypeScript into (lang/: make:lang; stubs/: template overrides; runtimes/: the Deno, Bun and Workers entries).
  include: ['app', 'routes', 'database', 'tests', 'lang', 'stubs', 'runtimes', 'vitest.config.ts'],
}

export const tsconfig: ProjectTemplate = () => ({ path: 'tsconfig.json', contents: `${JSON.stringify(PROJECT_TSCONFIG, null, 2)}\n` })

export const apiRoutes: ProjectTemplate = () => ({
  path: 'routes/api.ts',
  contents: `/**
 * Every route here is under /api; the auth routes (/api/auth/register, login,
 * refresh, logout, me...) and the health probes (/health/live, /health/ready)
 * are built in. \`npx svc route:list\` shows them all.
 */
import { defineRoutes } from 'svc'
import * as greetings from '../app/controllers/greetings.ts'

export default defineRoutes((r) => {
  r.version(1, (r) => {
    r.get('/hello', greetings.hello)
    // The body is checked against GreetingInput before greet() runs: a bad one is a 422.
    r.post('/greetings', greetings.greet).body(greetings.GreetingInput)
    // Only with a bearer token (POST /api/auth/login gives one).
    r.get('/me/greeting', greetings.greetMe).middleware('auth')
  })
})
`,
})

export const webRoutes: ProjectTemplate = (s) => ({
  path: 'routes/web.ts',
  contents: `/** Routes without the /api prefix. */
import { defineRoutes } from 'svc'

export default defineRoutes((r) => {
  r.get('/', function welcome() {
    return { name: ${JSON.stringify(s.name)}, api: '/api/v1/hello', health: '/health/ready' }
  })
})
`,
})

export const greetingsController: ProjectTemplate = (s) => ({
  path: 'app/controllers/greetings.ts',
  contents: `/** An example controller: a public route, a validated one and a protected one (routes/api.ts). */
import * as v from 'valibot'
import { maxChars, type Context } from 'svc'

/** GET /api/v1/hello */
export function hello(): { message: string } {
  return { message: ${JSON.stringify(`Hello from ${s.name}!`)} }
}

/** What POST /api/v1/greetings accepts. Declared on the route, it also types \`await c.body()\`. */
export const GreetingInput = v.object({
  name: v.pipe(v.string(), v.trim(), v.nonEmpty(), maxChars(100)),
})

/** POST /api/v1/greetings */
export async function greet(c: Context<'/greetings', { body: typeof GreetingInput }>): Promise<{ message: string }> {
  const { name } = await c.body()
  return { message: \`Hello, \${name}!\` }
}

/** GET /api/v1/me/greeting: the \`auth\` middleware has set \`c.user\`. */
export function greetMe(c: Context): { message: string; role: string } {
  const user = c.user!
  return { message: \`Hello, \${user.name}!\`, role: user.role }
}
`,
})

export const responseTimeMiddleware: ProjectTemplate = () => ({
  path: 'app/middleware/response-time.ts',
  contents: `import type { Middleware } from 'svc'

/** Adds \`Server-Timing: app;dur=<ms>\` to every response (registered for every route in app/kernel.ts). */
export const responseTime: Middleware = async function responseTime(c, next) {
  const started = performance.now()
  const response = await next()
  const timed = new Response(response.body, response)
  timed.headers.set('Server-Timing', \`app;dur=\${(performance.now() - started).toFixed(2)}\`)
  return timed
}
`,
})

export const kernel: ProjectTemplate = () => ({
  path: 'app/kernel.ts',
  contents: `/**
 * What applies to the whole app: global middleware, middleware aliases,
 * health checks, CORS (the CORS_ORIGINS variable), the error hook.
 */
import { defineKernel } from 'svc'
import { responseTime } from './middleware/response-time.ts'

export default defineKernel({
  middleware: [responseTime],
})
`,
})

/** The auth tables (users, refresh tokens, one-time tokens, security events, rate limits): what `svc make:auth` writes. */
export const authMigrations: ProjectTemplate = () =>
  AUTH_MIGRATION_SOURCES.map((source) => ({ path: `database/migrations/${source.name}.ts`, contents: renderMigrationFile(source, 'new') }))

export const adminSeeder: ProjectTemplate = () => ({
  path: 'database/seeders/admin.ts',
  contents: `/**
 * An admin account, when ADMIN_EMAIL and ADMIN_PASSWORD are set:
 *
 *   ADMIN_EMAIL=you@example.com ADMIN_PASSWORD='a long passphrase' npx svc db:seed --class=admin
 *
 * (With APP_ENV=production, add --force: svc refuses to seed a live database without it.)
 *
 * (An existing user becomes an admin without a seeder: npx svc user:role you@example.com admin.)
 */
import { createPasswordHasher, type Database } from 'svc'

export async function run(db: Database): Promise<void> {
  const email = process.env.ADMIN_EMAIL
  const password = process.env.ADMIN_PASSWORD
  if (!email || !password) {
    console.log('admin: set ADMIN_EMAIL and ADMIN_PASSWORD to seed an admin (skipped)')
    return
  }
  if (password.length < 8) throw new Error('ADMIN_PASSWORD must have at least 8 characters')
  const hash = await createPasswordHasher().hash(password)
  await db.execute(
    \`insert into users (name, email, password, role) values ('Admin', ?, ?, 'admin')
     on conflict (email) do update set role = 'admin', password = excluded.password\`,
    [email, hash],
  )
  console.log(\`admin: \${email} is an admin\`)
}
`,
})

export const vitestConfig: ProjectTemplate = () => ({
  path: 'vitest.config.ts',
  contents: `import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // Generous for a busy machine: a test starts the whole app and migrates a fresh database.
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
})
`,
})

export const exampleTest: ProjectTemplate = () => ({
  path: 'tests/example.test.ts',
  contents: `/**
 * The app in-process, on a fresh database: projectTestApp() builds it as
 * \`svc serve\` does (routes, app/kernel.ts, the auth and health routes) and
 * migrates a temporary database; its client calls app.fetch without a server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { projectTestApp, type ProjectTestApp } from 'svc/testing/project'

let t: ProjectTestApp
beforeAll(async () => {
  t = await projectTestApp()
})
afterAll(() => t.close())

describe('the API', () => {
  it('is ready (database included)', async () => {
    const { status, body } = await t.client.get('/health/ready')
    expect(status).toBe(200)
    expect(body.success).toBe(true)
  })

  it('says hello', async () => {
    const { status, body } = await t.client.get('/api/v1/hello')
    expect(status).toBe(200)
    expect(body.data.message).toMatch(/^Hello/)
  })

  it('greets by name, and refuses a blank one with 422', async () => {
    const ok = await t.client.post('/api/v1/greetings', { json: { name: '  Ada ' } })
    expect(ok.body.data).toEqual({ message: 'Hello, Ada!' })
    const blank = await t.client.post('/api/v1/greetings', { json: { name: ' ' } })
    expect(blank.status).toBe(422)
    expect(Object.keys(blank.body.errors)).toEqual(['name'])
  })

  it('needs a token for /me/greeting', async () => {
    expect((await t.client.get('/api/v1/me/greeting')).status).toBe(401)
    const token = await t.tokenFor({ name: 'Grace', role: 'admin' })
    const { status, body } = await t.client.get('/api/v1/me/greeting', { token })
    expect(status).toBe(200)
    expect(body.data).toEqual({ message: 'Hello, Grace!', role: 'admin' })
  })

  it('registers and logs in through the built-in auth routes', async () => {
    const account = { name: 'Lin', email: 'lin@example.test', password: 'correct horse battery', password_confirmation: 'correct horse battery' }
    expect((await t.client.post('/api/auth/register', { json: account })).status).toBe(201)
    const login = await t.client.post('/api/auth/login', { json: { email: account.email, password: account.password } })
    expect(login.status).toBe(200)
    const me = await t.client.get('/api/auth/me', { token: login.body.data.token })
    expect(me.body.data).toMatchObject({ email: account.email, role: 'user' })
  })
})
`,
})

const ENV_TEMPLATE = (s: ProjectSettings, secret: string, databaseUrl: string) => `# Read by every svc command and by the server; the process environment wins over this file.
APP_ENV=development
# Empty: on in development, off otherwise (error responses with exception messages and stacks).
APP_DEBUG=
PORT=8080
HOST=127.0.0.1
# Empty: the embedded SQLite file storage/database.sqlite. Or file:<path>, or libsql://... with DATABASE_AUTH_TOKEN.
DATABASE_URL=${databaseUrl}
DATABASE_AUTH_TOKEN=
# At least 32 characters; npx svc key:generate writes a fresh one.
JWT_SECRET=${secret}
JWT_TTL=3600
JWT_REFRESH_TTL=604800
# HS256 (JWT_SECRET) or RS256 (npx svc key:generate --rs256 writes the key pair to storage/keys/).
JWT_ALGORITHM=${s.jwtAlgorithm}
CORS_ORIGINS=
TRACE_PREFIX=svc
`

/** `.env` (mode 600: it holds the secret) and `.env.example` (the same settings, no secret; committed). */
export const envFiles: ProjectTemplate = (s) => [
  { path: '.env', contents: ENV_TEMPLATE(s, s.secret, s.databaseUrl), mode: 0o600 },
  { path: '.env.example', contents: `# Copy to .env, then: npx svc key:generate\n${ENV_TEMPLATE(s, '', s.databaseUrl)}` },
]

export const gitignore: ProjectTemplate = () => ({
  path: '.gitignore',
  contents: `node_modules/
.env
storage/*.sqlite*
.dev.vars
.wrangler/
`,
})

/** Runtime files (the database, caches, logs, traces, RS256 keys) stay out of version control. */
export const storageGitignore: ProjectTemplate = () => ({ path: 'storage/.gitignore', contents: '*\n!.gitignore\n' })

export const readme: ProjectTemplate = (s) => ({
  path: 'README.md',
  contents: `# ${s.name}

A token-authenticated JSON API built with svc.

\`\`\`sh
npm install && npm start   # migrates the database and serves http://127.0.0.1:8080
npm test                   # runs tests/ against a fresh database
\`\`\`

\`npm run dev\` restarts on changes, \`npm run typecheck\` checks the types, \`npx svc list\` shows every command.

## What is where

| Path | What |
|---|---|
| \`routes/api.ts\` | routes under \`/api\` (auth and health routes are built in: \`npx svc route:list\`) |
| \`routes/web.ts\` | routes without a prefix (the pages the auth mails link to, \`/verify-email\` and \`/reset-password\`, are built in) |
| \`app/controllers/\`, \`app/middleware/\` | handlers and middleware |
| \`app/kernel.ts\` | global middleware, aliases, health checks |
| \`database/migrations/\`, \`database/seeders/\` | \`npx svc migrate\`, \`npx svc db:seed\` |
| \`tests/\` | vitest, with \`svc/testing/project\` |
| \`storage/\` | the SQLite database, logs, traces (not committed) |
| \`.env\` | settings and the JWT secret (not committed; \`.env.example\` is) |
| \`runtimes/\`, \`wrangler.toml\`, \`.dev.vars\` | the app on Deno, Bun and Cloudflare Workers (below) |

## Deno, Bun and Cloudflare Workers

\`npm start\` serves on Node. The same app runs elsewhere. Each script first runs \`svc runtime:prepare\`: it says what to install when the runtime is missing, makes \`.env\` as \`npm start\` does, and rewrites \`database/migrations/index.ts\` (as \`svc migrate:bundle\`); the app migrates its database on start:

- \`npm run start:deno\`: Deno 2 on your PATH (or \`npm install -D deno\`); the same \`.env\`, \`storage/database.sqlite\` and \`storage/traces.sqlite\` as \`npm start\` (\`npx svc trace:list\` reads them)
- \`npm run start:bun\`: Bun on your PATH (or \`npm install -D bun\`); the same files
- \`npm run dev:workers\`: \`npm install -D wrangler\` first; \`wrangler dev\` on http://localhost:8787 with local D1 databases (\`.wrangler/state\`) and \`.dev.vars\`'s secret; traces: \`npx wrangler d1 execute ${workerName(s.name)}-traces --local --command "select data from svc_trace_batches order by id desc limit 5"\`
- \`npm run deploy:workers\`: after the steps at the top of \`wrangler.toml\`

Mails are printed to the console there; docs/runtimes.md says what differs.

## First steps

- Register: \`curl -X POST localhost:8080/api/auth/register -H 'content-type: application/json' -d '{"name":"Ada","email":"ada@example.com","password":"a long passphrase","password_confirmation":"a long passphrase"}'\`
- Open the verification mail (in development it is appended to \`storage/logs/mail.log\`): its link opens \`/verify-email\`, a page svc serves that verifies the address; \`forgot-password\`'s mail links to \`/reset-password\`
- Make that user an admin: \`npx svc user:role ada@example.com admin\`
- Add a resource: \`npx svc make:crud Post\`, then \`npx svc migrate\`
- See a request's trace: \`npx svc trace:list\`, \`npx svc log:trace <id>\`
`,
})

/** Every file of a new project, in the order they are listed. */
export const PROJECT_TEMPLATES: readonly ProjectTemplate[] = [
  packageJson,
  tsconfig,
  readme,
  gitignore,
  envFiles,
  apiRoutes,
  webRoutes,
  greetingsController,
  responseTimeMiddleware,
  kernel,
  authMigrations,
  adminSeeder,
  storageGitignore,
  vitestConfig,
  exampleTest,
  ...RUNTIME_TEMPLATES,
]

export function renderProject(settings: ProjectSettings): ProjectFile[] {
  return PROJECT_TEMPLATES.flatMap((template) => template(settings))
}
