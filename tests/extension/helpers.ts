/**
 * Shared by the extension's test layers: workspaces with recorded traffic
 * (the real `svc serve` writes the traces), and the built `svc` to run in
 * them.
 *
 * - `recordedApp()`: a copy of the blog example at the workspace root, no
 *   auth traffic (the first workspace of the e2e test).
 * - `repoWorkspace()`: this repo's layout: a package.json at the root naming
 *   the app in a subfolder (`"svc": { "app": "examples/blog" }`) and a `bin`
 *   for `svc`, auth on, several signed-in users (the second workspace).
 *
 * Both have a `bin/svc.js` that runs the built CLI and, when `SVC_SPAWN_LOG`
 * is set, appends each run's arguments to that file: how the tests count the
 * CLI processes an editor starts.
 */
import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { createClient } from '@libsql/client'
import { appCopyAt, copyExampleApp, linkRepoModules, REPO_ROOT, SVC_BIN, spawnSvc, startSvc, svcJson, waitForLine, type AppCopy } from '../helpers/cli.ts'

export interface SentRequest {
  method: string
  path: string
  status: number
  traceId: string | null
}

export interface RecordedApp extends AppCopy {
  /** The requests sent, in order. */
  sent: SentRequest[]
  /** The CLI shim (`node bin/svc.js ...`), logging its runs to `$SVC_SPAWN_LOG`. */
  bin: string
}

export interface RequestSpec {
  method: string
  path: string
  json?: unknown
  /** A bearer token. */
  token?: string
}

/** The traffic recorded by default: successes, a 404 (no such post), a 404 route miss, a 500 (GET /boom, see below). */
export const DEFAULT_TRAFFIC: RequestSpec[] = [
  { method: 'GET', path: '/api/v1/posts' },
  { method: 'GET', path: '/api/v1/posts/1' },
  { method: 'GET', path: '/api/v1/posts/999' },
  { method: 'GET', path: '/api/v2/posts' },
  { method: 'GET', path: '/nowhere' },
  { method: 'GET', path: '/boom' },
  { method: 'GET', path: '/' },
]

/**
 * Two routes the copies get: a failing one, so that the traces have an error
 * (a 500 with an exception), and an N+1 loop (six times the same statement).
 */
const EXTRA_ROUTES = `  r.get('/boom', function boom() {
    throw new Error('boom: a failing handler, for the extension tests')
  })
  r.get('/loop', async function loop(c) {
    for (let id = 1; id <= 6; id++) await c.db.first('select * from posts where id = ?', [id])
    return { looped: 6 }
  })
`

/** The CLI as a workspace's own `bin`: runs the built svc, logging each run's arguments to $SVC_SPAWN_LOG when set. */
const CLI_SHIM = `#!/usr/bin/env node
import { appendFileSync } from 'node:fs'
if (process.env.SVC_SPAWN_LOG) appendFileSync(process.env.SVC_SPAWN_LOG, JSON.stringify(process.argv.slice(2)) + '\\n')
await import(${JSON.stringify(pathToFileURL(SVC_BIN).href)})
`

function addExtraRoutes(app: AppCopy, routesDir: string): void {
  const file = join(routesDir, 'web.ts')
  const source = app.read(file)
  app.write(file, source.replace(/\n\}\)\s*$/, `\n${EXTRA_ROUTES}})\n`))
  if (!app.read(file).includes("'/loop'")) throw new Error(`could not add the test routes to ${file}`)
}

/** Copies the blog app, migrates and seeds it, serves it, sends `traffic`, and stops the server (flushing the traces). */
export async function recordedApp(traffic: RequestSpec[] = DEFAULT_TRAFFIC, env: Record<string, string> = {}): Promise<RecordedApp> {
  const app = copyExampleApp('blog')
  addExtraRoutes(app, 'routes')
  app.write('bin/svc.js', CLI_SHIM)
  const sent = await recordTraffic(app, env, async (send) => {
    for (const request of traffic) await send(request)
  })
  return { ...app, sent: sent.list, bin: app.path('bin', 'svc.js') }
}

export interface RepoWorkspace extends RecordedApp {
  /** The app folder, relative to the root. */
  appFolder: string
  /** The requests sent, by name. */
  named: Record<string, SentRequest>
  users: Record<'admin' | 'reader' | 'ada', { email: string; password: string; id: number }>
}

export const WORKSPACE_PASSWORD = 'correct-horse-battery-staple-42'

/**
 * This repo's layout: `package.json` at the root with `"svc": { "app":
 * "examples/blog", "storage": "storage" }` and `"bin": { "svc": "./bin/svc.js" }`
 * (no `node_modules/.bin/svc`: the editor finds the package's own bin), the
 * app in `examples/blog`, `.env` and `storage/` at the root. Auth on: an
 * admin and a reader seeded, Ada registered; their requests recorded.
 */
export async function repoWorkspace(): Promise<RepoWorkspace> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-repo-'))
  const appFolder = 'examples/blog'
  const source = join(REPO_ROOT, 'examples', 'blog')
  cpSync(source, join(dir, appFolder), { recursive: true, filter: (path) => !/[\\/](storage[\\/].+|\.env|node_modules)$/.test(path.slice(source.length)) })
  mkdirSync(join(dir, 'storage'))
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: 'repo-layout', private: true, type: 'module', bin: { svc: './bin/svc.js' }, svc: { app: appFolder, storage: 'storage' } }, null, 2)}\n`,
  )
  linkRepoModules(dir)
  const app = appCopyAt(dir)
  addExtraRoutes(app, join(appFolder, 'routes'))
  app.write('bin/svc.js', CLI_SHIM)
  const password = WORKSPACE_PASSWORD
  const env = { ADMIN_PASSWORD: password, USER_PASSWORD: password }
  const tokens: Record<string, string> = {}
  const sent = await recordTraffic(app, env, async (send) => {
    const registered = await send({ name: 'register', method: 'POST', path: '/api/auth/register', json: { name: 'Ada', email: 'ada@example.com', password, password_confirmation: password } })
    tokens.ada = (registered.body as { data: { token: string } }).data.token
    // Ada wrote the seeded post 1, which she edits below (only a post's author or an admin may): set in the database, so no trace is added.
    const db = createClient({ url: `file:${join(dir, 'storage', 'database.sqlite')}`, timeout: 10_000 })
    await db.execute("update posts set user_id = (select id from users where email = 'ada@example.com') where id = 1")
    db.close()
    for (const [name, email] of [['admin', 'admin@example.com'], ['reader', 'user@example.com']] as const) {
      const login = await send({ name: `login:${name}`, method: 'POST', path: '/api/auth/login', json: { email, password } })
      tokens[name] = (login.body as { data: { token: string } }).data.token
    }
    await send({ name: 'me:reader', method: 'GET', path: '/api/auth/me', token: tokens.reader })
    await send({ name: 'me:admin', method: 'GET', path: '/api/auth/me', token: tokens.admin })
    // With the seeded post's published_at: a PUT replaces the post, and one without it would make it a draft (hidden from the list).
    await send({ name: 'update', method: 'PUT', path: '/api/v1/posts/1', token: tokens.ada, json: { title: 'Hello, svc (edited)', published_at: '2026-01-15T10:00:00.000Z' } })
    await send({ name: 'health', method: 'GET', path: '/health/live' })
    await send({ name: 'list', method: 'GET', path: '/api/v1/posts?page=1' })
    await send({ name: 'notFound', method: 'GET', path: '/api/v1/posts/999' })
    await send({ name: 'health2', method: 'GET', path: '/health/ready' })
    await send({ name: 'loop', method: 'GET', path: '/loop' })
    await send({ name: 'forbidden', method: 'DELETE', path: '/api/v1/posts/2', token: tokens.ada })
    await send({ name: 'me:ada', method: 'GET', path: '/api/auth/me', token: tokens.ada })
  })
  const expected: Record<string, number> = { register: 201, 'login:admin': 200, 'login:reader': 200, 'me:reader': 200, 'me:admin': 200, update: 200, health: 200, list: 200, notFound: 404, health2: 200, loop: 200, forbidden: 403, 'me:ada': 200 }
  for (const [name, status] of Object.entries(expected)) {
    if (sent.named[name]?.status !== status) throw new Error(`${name}: expected ${status}, got ${sent.named[name]?.status}`)
  }
  // The users' ids, from the app's database itself (no command under test involved).
  const db = createClient({ url: `file:${join(dir, 'storage', 'database.sqlite')}` })
  const rows = (await db.execute('select id, email from users')).rows as unknown as Array<{ id: number; email: string }>
  db.close()
  const idOf = (email: string) => Number(rows.find((row) => row.email === email)?.id)
  return {
    ...app,
    sent: sent.list,
    named: sent.named,
    bin: app.path('bin', 'svc.js'),
    appFolder,
    users: {
      admin: { email: 'admin@example.com', password, id: idOf('admin@example.com') },
      reader: { email: 'user@example.com', password, id: idOf('user@example.com') },
      ada: { email: 'ada@example.com', password, id: idOf('ada@example.com') },
    },
  }
}

type Send = (request: RequestSpec & { name?: string }) => Promise<SentRequest & { body: unknown }>

/** Migrates and seeds the workspace, serves it, runs `script` (which sends requests), stops the server and checks every request was recorded. */
async function recordTraffic(app: AppCopy, env: Record<string, string>, script: (send: Send) => Promise<void>): Promise<{ list: SentRequest[]; named: Record<string, SentRequest> }> {
  const fresh = await spawnSvc(['migrate:fresh', '--seed'], { cwd: app.dir, env, timeoutMs: 60_000 })
  if (fresh.code !== 0) throw new Error(`migrate:fresh --seed failed: ${fresh.stderr}`)
  const server = startSvc(['serve', '--port', '0', '--host', '127.0.0.1'], { cwd: app.dir, env })
  const list: SentRequest[] = []
  const named: Record<string, SentRequest> = {}
  try {
    const [, url] = await waitForLine(server.stdout, /listening on (http:\/\/\S+)/, 30_000)
    await script(async (request) => {
      const headers: Record<string, string> = {}
      if (request.json !== undefined) headers['content-type'] = 'application/json'
      if (request.token !== undefined) headers.authorization = `Bearer ${request.token}`
      const response = await fetch(`${url!.replace(/\/$/, '')}${request.path}`, {
        method: request.method,
        headers,
        body: request.json === undefined ? undefined : JSON.stringify(request.json),
      })
      const text = await response.text()
      const sent = { method: request.method, path: request.path, status: response.status, traceId: response.headers.get('x-service-trace-id') }
      list.push(sent)
      if (request.name !== undefined) named[request.name] = sent
      let body: unknown = text
      try {
        body = JSON.parse(text)
      } catch {
        // not JSON
      }
      return { ...sent, body }
    })
  } finally {
    const exited = new Promise((resolve) => server.once('close', resolve))
    server.kill('SIGTERM')
    await exited
  }
  // Every request was recorded (a graceful stop flushes the trace writer): the tests rely on it.
  const stored = await svcJson<{ traces: unknown[] }>(['trace:list', '--limit=1000'], { cwd: app.dir, env })
  if (stored.traces.length !== list.length) {
    app.remove()
    throw new Error(`the trace store has ${stored.traces.length} traces after ${list.length} requests`)
  }
  return { list, named }
}
