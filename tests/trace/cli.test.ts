/**
 * The trace toolbox end to end: a temporary copy of examples/blog served by
 * the real `svc serve`, traffic of every kind recorded, then every command
 * and filter run in-process (tests/helpers/run-svc.ts), each `--json`
 * document checked against its schema from cli/contract/schemas.json.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer as createHttpServer } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { createClient } from '@libsql/client'
import { SignJWT } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ValidateFunction } from 'ajv'
import { contractAjv as ajv } from '../helpers/contract.ts'
import type { TraceListJson, TraceSummaryJson, WhyJson } from '../../cli/contract/traces.ts'
import { contractValidator, expectContract, runSvc } from '../helpers/run-svc.ts'
import { copyExampleApp, REPO_ROOT, runVitestIn, startSvc, waitForLine, type AppCopy } from '../helpers/cli.ts'

const SECRET = 'trace-tests-jwt-secret-0123456789abcdef'
const PASSWORD = 'correct-horse-battery-staple-42'
const API_KEY = 'trace-tests-webhook-key-0123456789'
// The traced post is published (a draft's GET is a 404: examples/blog/tests/feature/drafts.test.ts).
const PUBLISHED_AT = '2026-01-02T03:04:05.000Z'
const [cleanupSchema, dbWhySchema, exportSchema, fixSchema, regressionSchema, replaySchema, slowSchema, statsSchema, topSchema, traceListSchema, traceSchema, traceSummarySchema, whySchema] = (
  ['CleanupJson', 'DbWhyJson', 'ExportJson', 'FixJson', 'RegressionJson', 'ReplayJson', 'SlowJson', 'StatsJson', 'TopJson', 'TraceListJson', 'TraceJson', 'TraceSummaryJson', 'WhyJson'] as const
).map((name) => contractValidator(name))

let app: AppCopy
/** Trace id of each recorded request, by a short name. */
const ids: Record<string, string> = {}
let adminToken = ''
/** Scoped keys made by `svc make:apikey`: `reader` holds exports:read, `other` only other:read, `revoked` is revoked after creation. */
const keys: Record<'reader' | 'other' | 'revoked', string> = { reader: '', other: '', revoked: '' }
let recordedCount = 0
/** The recording server's origin: a replay without --url goes to the recorded host and port. */
let recordedBase = ''

/** `svc <args>` in-process (tests/helpers/run-svc.ts), in the app copy. */
async function svc(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const { exitCode, stdout, stderr } = await runSvc(args, { cwd: app.dir, env })
  return { code: exitCode, stdout, stderr }
}

/** Runs `svc <args> --json`, checks exit code 0 (unless told), the schema and the command's declared contract, returns the document. */
async function json<T = any>(args: string[], validate: ValidateFunction, options: { env?: Record<string, string>; exitCode?: number } = {}): Promise<T> {
  const result = await svc([...args, '--json'], options.env)
  expect(result.code, `svc ${args.join(' ')}: ${result.stderr}`).toBe(options.exitCode ?? 0)
  const document = JSON.parse(result.stdout) as T
  expect(validate(document), `svc ${args.join(' ')} --json: ${ajv.errorsText(validate.errors)}`).toBe(true)
  await expectContract(args[0]!, document)
  return document
}

const EXTRA_ROUTES = `
import { defineRoutes } from 'svc'

export default defineRoutes((r) => {
  r.get('/', function welcome() {
    return { name: 'trace test app' }
  })
  r.get('/limited', () => ({ ok: true })).throttle(1, 1)
  r.get('/boom', function boom() {
    throw new TypeError('the widget exploded')
  })
  r.get('/exports', function listExports() {
    return { exports: [] }
  }).middleware('apikey:exports:read')
  r.post('/webhooks/billing', function billingWebhook() {
    return { received: true }
  }).middleware('apikey')
  r.get('/loop', async (c) => {
    for (let i = 1; i <= 6; i++) await c.db.execute('select * from posts where id = ?', [i])
    return { looped: 6 }
  })
})
`

async function expiredToken(userId: number): Promise<string> {
  const now = Math.floor(Date.now() / 1000)
  return new SignJWT({ typ: 'access', ver: 0 })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(String(userId))
    .setIssuedAt(now - 7200)
    .setNotBefore(now - 7200)
    .setExpirationTime(now - 3600)
    .setJti(crypto.randomUUID())
    .sign(new TextEncoder().encode(SECRET))
}

beforeAll(async () => {
  app = copyExampleApp('blog')
  app.write('routes/web.ts', EXTRA_ROUTES)
  app.write('.env', `APP_ENV=development\nAPP_DEBUG=true\nJWT_SECRET=${SECRET}\nAPI_KEY=${API_KEY}\nTRACE_PREFIX=svc\n`)
  expect((await svc(['make:apikey-table'])).code).toBe(0)
  const migrated = await svc(['migrate'])
  expect(migrated.code, migrated.stderr).toBe(0)
  const makeKey = async (name: string, scopes: string) => {
    const made = await svc(['make:apikey', name, scopes, '30', '--json'])
    expect(made.code, made.stderr).toBe(0)
    return (JSON.parse(made.stdout) as { key: string }).key
  }
  keys.reader = await makeKey('reader', 'exports:read')
  keys.other = await makeKey('other', 'other:read')
  keys.revoked = await makeKey('revoked', 'exports:read')

  const server = startSvc(['serve', '--port', '0'], { cwd: app.dir })
  let stderr = ''
  server.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const [, base] = await waitForLine(server.stdout, /listening on (http:\/\/\S+)/)
  recordedBase = base!
  const send = async (name: string, method: string, path: string, init: { json?: unknown; body?: string; token?: string; headers?: Record<string, string> } = {}) => {
    const headers: Record<string, string> = { ...init.headers }
    if (init.json !== undefined) headers['content-type'] = 'application/json'
    if (init.token !== undefined) headers.authorization = `Bearer ${init.token}`
    const response = await fetch(`${base}${path}`, { method, headers, body: init.body ?? (init.json === undefined ? undefined : JSON.stringify(init.json)) })
    const body = await response.text()
    ids[name] = response.headers.get('x-service-trace-id')!
    recordedCount++
    return { status: response.status, body: body === '' ? null : JSON.parse(body) }
  }
  try {
    // The served app writes to the same file: wait for its lock instead of failing with SQLITE_BUSY.
    const db = createClient({ url: `file:${app.path('storage', 'database.sqlite')}`, timeout: 10_000 })
    const register = async (name: string, email: string) =>
      send(`register:${email}`, 'POST', '/api/auth/register', { json: { name, email, password: PASSWORD, password_confirmation: PASSWORD } })
    expect((await register('Ada', 'ada@example.com')).status).toBe(201)
    expect((await register('Root', 'root@example.com')).status).toBe(201)
    expect((await register('Gone', 'gone@example.com')).status).toBe(201)
    await db.execute("update users set role = 'admin' where email = 'root@example.com'")
    const login = async (email: string) =>
      (await send(`login:${email}`, 'POST', '/api/auth/login', { json: { email, password: PASSWORD } })).body.data.token as string
    const ada = await login('ada@example.com')
    adminToken = await login('root@example.com')
    const gone = await login('gone@example.com')
    await db.execute("update users set status = 0 where email = 'gone@example.com'")
    await db.execute("update api_keys set revoked_at = '2000-01-01T00:00:00.000Z' where name = 'revoked'")
    db.close()

    expect((await send('list', 'GET', '/api/v1/posts')).status).toBe(200)
    expect((await send('create', 'POST', '/api/v1/posts', { token: ada, json: { title: 'Traced post', body: 'hello', published_at: PUBLISHED_AT } })).status).toBe(201)
    expect((await send('show', 'GET', '/api/v1/posts/1?view=full')).status).toBe(200)
    expect((await send('update', 'PUT', '/api/v1/posts/1', { token: ada, json: { title: 'Traced post, edited', published_at: PUBLISHED_AT } })).status).toBe(200)
    expect((await send('notFound', 'GET', '/api/v1/posts/no-such-post')).status).toBe(404)
    expect((await send('fallback', 'GET', '/api/v3/nothing')).status).toBe(404)
    expect((await send('methodNotAllowed', 'DELETE', '/api/v1/posts')).status).toBe(405)
    expect((await send('options', 'OPTIONS', '/api/v1/posts')).status).toBe(204)
    expect((await send('badRequest', 'POST', '/api/v1/posts', { token: ada, body: '{"title": "unfinished', headers: { 'content-type': 'application/json' } })).status).toBe(400)
    expect((await send('validation', 'POST', '/api/v1/posts', { token: ada, json: { title: '' } })).status).toBe(422)
    expect((await send('missingToken', 'POST', '/api/v1/posts', { json: { title: 'x' } })).status).toBe(401)
    expect((await send('invalidToken', 'GET', '/api/auth/me', { token: 'not-a-jwt' })).status).toBe(401)
    expect((await send('expiredToken', 'GET', '/api/auth/me', { token: await expiredToken(1) })).status).toBe(401)
    expect((await send('inactive', 'GET', '/api/auth/me', { token: gone })).status).toBe(403)
    expect((await send('role', 'DELETE', '/api/v1/posts/1', { token: ada })).status).toBe(403)
    expect((await send('limitedOk', 'GET', '/limited')).status).toBe(200)
    expect((await send('throttle', 'GET', '/limited')).status).toBe(429)
    expect((await send('exception', 'GET', '/boom')).status).toBe(500)
    expect((await send('nPlusOne', 'GET', '/loop')).status).toBe(200)
    const apiKey = (key: string) => ({ headers: { 'x-api-key': key } })
    expect((await send('apiKeyOk', 'GET', '/exports', apiKey(keys.reader))).status).toBe(200)
    expect((await send('apiKeyMissing', 'GET', '/exports')).status).toBe(401)
    expect((await send('apiKeyWrong', 'GET', '/exports', apiKey('svc_nope_not-a-stored-key'))).status).toBe(401)
    expect((await send('apiKeyRevoked', 'GET', '/exports', apiKey(keys.revoked))).status).toBe(401)
    expect((await send('apiKeyScope', 'GET', '/exports', apiKey(keys.other))).status).toBe(403)
    expect((await send('apiKeyPlainOk', 'POST', '/webhooks/billing', apiKey(API_KEY))).status).toBe(200)
    expect((await send('apiKeyPlainWrong', 'POST', '/webhooks/billing', apiKey(`${API_KEY}-wrong`))).status).toBe(401)
    expect((await send('logout', 'POST', '/api/auth/logout', { token: ada })).status).toBe(200)
    expect((await send('tokenVersion', 'GET', '/api/auth/me', { token: ada })).status).toBe(401)
  } finally {
    server.kill('SIGTERM')
    await new Promise((resolve) => server.once('close', resolve))
  }
  expect(stderr).toContain('finishing in-flight requests')
}, 120_000)

afterAll(() => app?.remove())

describe('recording through svc serve', () => {
  it('wrote every request at the graceful stop, and no secret reached the trace database', async () => {
    const list = await json<TraceListJson>(['trace:list', '--limit', '1000'], traceListSchema)
    const listed = new Set(list.traces.map((t) => t.trace_id))
    for (const [name, id] of Object.entries(ids)) expect(listed.has(id), `trace of ${name}`).toBe(true)
    expect(list.traces.length).toBeGreaterThanOrEqual(recordedCount)

    const bytes = readdirSync(app.path('storage'))
      .filter((file) => file.startsWith('traces.sqlite'))
      .map((file) => readFileSync(app.path('storage', file)).toString('latin1'))
      .join('')
    expect(bytes).toContain('ada@example.com')
    expect(bytes).not.toContain(PASSWORD)
    expect(bytes).not.toContain(adminToken)
    expect(bytes).not.toContain(SECRET)
    for (const key of [API_KEY, ...Object.values(keys)]) expect(bytes).not.toContain(key)
  })
})

describe('log:trace and trace:list', () => {
  it('shows one trace in full, as JSON and for humans', async () => {
    const { trace } = await json(['log:trace', ids.create!], traceSchema)
    expect(trace).toMatchObject({ method: 'POST', path: '/api/v1/posts', route: '/api/v1/posts', status_code: 201, user_id: 1 })
    expect(trace.headers.authorization).toBe('[REDACTED]')
    expect(trace.body.content).toEqual({ title: 'Traced post', body: 'hello', published_at: PUBLISHED_AT })
    expect(trace.queries.some((q: { sql: string }) => q.sql.startsWith('insert into posts'))).toBe(true)
    expect(trace.middleware.map((m: { name: string }) => m.name)).toContain('auth')

    const human = await svc(['log:trace', ids.exception!])
    expect(human.code).toBe(0)
    for (const section of ['GET /boom', '500', 'Request headers', 'SQL (0 queries', 'Middleware timeline', 'Exception', 'TypeError: the widget exploded', 'Stack trace', 'N+1 detection', 'Total']) {
      expect(human.stdout).toContain(section)
    }
    const loop = await svc(['log:trace', ids.nPlusOne!])
    expect(loop.stdout).toContain('6x select * from posts where id = ?')
  })

  it('finds a trace by the start of its id, and names a missing one', async () => {
    const { trace } = await json(['log:trace', ids.list!.slice(0, 14)], traceSchema)
    expect(trace.trace_id).toBe(ids.list)
    const missing = await svc(['log:trace', 'svc_0000000000000000000000000000dead'])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain('E_TRACE_NOT_FOUND')
  })

  const filterCases: Array<[string, string[], (t: TraceSummaryJson) => boolean, string[]]> = [
    ['--status 405', ['--status', '405'], (t) => t.status_code === 405, ['methodNotAllowed']],
    ['--status 4xx', ['--status', '4xx'], (t) => t.status_code >= 400 && t.status_code < 500, ['notFound', 'throttle', 'role']],
    ['--status 401,5xx', ['--status', '401,5xx'], (t) => t.status_code === 401 || t.status_code >= 500, ['missingToken', 'exception']],
    ['--method put', ['--method', 'put'], (t) => t.method === 'PUT', ['update']],
    ['--path substring', ['--path', 'posts/1'], (t) => t.path.includes('posts/1'), ['show', 'update']],
    ['--path glob', ['--path', '/api/v*/posts/*'], (t) => /^\/api\/v[^/]*\/posts\//.test(t.path), ['show', 'notFound']],
    ['--ip', ['--ip', '127.0.0.1'], (t) => t.ip === '127.0.0.1', ['list']],
    ['--error', ['--error'], (t) => t.status_code >= 500, ['exception']],
    ['--since 1h', ['--since', '1h'], (t) => Date.parse(t.timestamp) > Date.now() - 3_600_000, ['list']],
    ['--days 1', ['--days', '1'], () => true, ['list']],
    ['--slow 0', ['--slow', '0'], (t) => t.duration_ms >= 0, ['list']],
  ]
  for (const [name, args, holds, includes] of filterCases) {
    it(`trace:list and log:trace filter the same way: ${name}`, async () => {
      const list = await json<TraceListJson>(['trace:list', ...args, '--limit', '500'], traceListSchema)
      const search = await json<TraceListJson>(['log:trace', ...args, '--limit', '500'], traceListSchema)
      expect(search.traces).toEqual(list.traces)
      expect(list.traces.length).toBeGreaterThan(0)
      for (const trace of list.traces) expect(holds(trace), `${trace.method} ${trace.path} ${trace.status_code}`).toBe(true)
      const found = new Set(list.traces.map((t) => t.trace_id))
      for (const key of includes) expect(found.has(ids[key]!), key).toBe(true)
    })
  }

  it('--slow alone uses TRACE_SLOW_MS, --since an old age keeps nothing out, --limit cuts', async () => {
    const slow = await json<TraceListJson>(['trace:list', '--slow'], traceListSchema, { env: { TRACE_SLOW_MS: '100000' } })
    expect(slow.filters.slow_ms).toBe(100000)
    expect(slow.traces).toEqual([])
    const limited = await json<TraceListJson>(['trace:list', '--limit', '2'], traceListSchema)
    expect(limited.traces).toHaveLength(2)
    const future = await json<TraceListJson>(['trace:list', '--since', '2999-01-01'], traceListSchema)
    expect(future.traces).toEqual([])
    const bad = await svc(['trace:list', '--status', 'teapot'])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain('E_BAD_OPTION')
  })

  it('prints one line per trace for humans', async () => {
    const human = await svc(['trace:list', '--status', '405'])
    expect(human.stdout).toMatch(/DELETE\s+\/api\/v1\/posts\s+405/)
    expect(human.stdout).toContain(ids.methodNotAllowed)
  })
})

describe('log:export, log:tail, log:slow, log:stats, log:top, log:cleanup', () => {
  it('exports one trace, or many, as JSON or a Postman collection', async () => {
    const one = await json(['log:export', ids.create!], exportSchema)
    expect(one.traces.map((t: { trace_id: string }) => t.trace_id)).toEqual([ids.create])
    const many = await json(['log:export', '--status', '401'], exportSchema)
    expect(many.traces.length).toBeGreaterThanOrEqual(3)
    expect(many.traces.every((t: { status_code: number }) => t.status_code === 401)).toBe(true)
    const postman = await svc(['log:export', ids.create!, '--format', 'postman'])
    const collection = JSON.parse(postman.stdout)
    expect(collection.info.schema).toContain('v2.1.0')
    expect(collection.item[0].request.method).toBe('POST')
    expect(collection.item[0].request.header).toContainEqual({ key: 'authorization', value: 'Bearer {{token}}' })
    expect(collection.item[0].response[0].code).toBe(201)
  })

  it('tails: the last lines, by type, then follows new traces', async () => {
    const result = await svc(['log:tail', '--no-follow', '--lines', '3', '--json'])
    const lines = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as TraceSummaryJson)
    expect(lines).toHaveLength(3)
    const validate = traceSummarySchema
    for (const line of lines) expect(validate(line), ajv.errorsText(validate.errors)).toBe(true)
    const errors = await svc(['log:tail', '--no-follow', '--type', 'error', '--json'])
    const errorLines = errors.stdout.trim().split('\n').map((line) => JSON.parse(line) as TraceSummaryJson)
    expect(errorLines.every((line) => line.status_code >= 500)).toBe(true)

    // Its first line (the newest trace) says it has read where the store ends: a trace written after it is new.
    const tail = startSvc(['log:tail', '--lines', '1', '--json'], { cwd: app.dir })
    try {
      await waitForLine(tail.stdout, /^\{.*\}$/, 60_000)
      const replayed = await json(['log:replay', ids.list!], replaySchema)
      const [line] = await waitForLine(tail.stdout, new RegExp(`^\\{.*${replayed.response.trace_id}.*\\}$`))
      expect(JSON.parse(line)).toMatchObject({ trace_id: replayed.response.trace_id, path: '/api/v1/posts' })
    } finally {
      tail.kill('SIGTERM')
    }
  })

  it('log:slow lists the slowest first, at least --min', async () => {
    const slow = await json(['log:slow', '--min', '0', '--limit', '5'], slowSchema)
    expect(slow.min_ms).toBe(0)
    expect(slow.traces).toHaveLength(5)
    const durations = slow.traces.map((t: TraceSummaryJson) => t.duration_ms)
    expect(durations).toEqual([...durations].sort((a, b) => b - a))
    const none = await json(['log:slow', '--min', '999999'], slowSchema)
    expect(none.traces).toEqual([])
  })

  it('log:stats counts by status class, error rate, percentiles, N+1 and dropped traces', async () => {
    const stats = await json(['log:stats', '--days', '1'], statsSchema)
    expect(stats.total).toBeGreaterThanOrEqual(recordedCount)
    expect(stats.by_status['5xx']).toBeGreaterThanOrEqual(1)
    expect(stats.by_status['4xx']).toBeGreaterThanOrEqual(12)
    expect(stats.error_rate).toBeGreaterThan(0)
    expect(stats.p50_ms).toBeLessThanOrEqual(stats.p95_ms)
    expect(stats.p95_ms).toBeLessThanOrEqual(stats.p99_ms)
    expect(stats.dropped).toBe(0)
    expect(stats.n_plus_one).toBeGreaterThanOrEqual(1)
    expect(stats.slowest_routes.length).toBeGreaterThan(0)
    const human = await svc(['log:stats'])
    expect(human.stdout).toContain('dropped')
  })

  it('log:top ranks endpoints by route pattern', async () => {
    const top = await json(['log:top', '--limit', '50'], topSchema)
    const show = top.endpoints.find((e: { route: string; method: string }) => e.route === '/api/v1/posts/{id}' && e.method === 'GET')
    expect(show).toMatchObject({ count: expect.any(Number), p95_ms: expect.any(Number) })
    const p95s = top.endpoints.map((e: { p95_ms: number }) => e.p95_ms)
    expect(p95s).toEqual([...p95s].sort((a, b) => b - a))
  })

  it('log:cleanup --dry-run counts without deleting', async () => {
    const before = await json<TraceListJson>(['trace:list', '--limit', '10000'], traceListSchema)
    const keep = await json(['log:cleanup', '--days', '1', '--dry-run'], cleanupSchema)
    expect(keep).toMatchObject({ days: 1, dry_run: true, deleted: 0 })
    const all = await json(['log:cleanup', '--days', '0', '--dry-run'], cleanupSchema)
    expect(all.deleted).toBe(before.traces.length)
    const after = await json<TraceListJson>(['trace:list', '--limit', '10000'], traceListSchema)
    expect(after.traces.length).toBe(before.traces.length)
  })
})

/** An $EDITOR that applies `edit` (a statement on `request`) to the request replay opens in it. */
function requestEditor(name: string, edit: string): string {
  const script = app.path(name)
  writeFileSync(
    script,
    `import { readFileSync, writeFileSync } from 'node:fs'
const file = process.argv[2]
const request = JSON.parse(readFileSync(file, 'utf8'))
${edit}
writeFileSync(file, JSON.stringify(request))
`,
  )
  return `${process.execPath} ${script}`
}

describe('log:replay', () => {
  it('replays in process and diffs against the recorded response', async () => {
    const replay = await json(['log:replay', ids.show!, '--diff'], replaySchema)
    expect(replay).toMatchObject({ target: 'in-process', dry_run: false, command: null })
    expect(replay.request.url).toBe(`${recordedBase}/api/v1/posts/1?view=full`)
    expect(replay.response.status).toBe(200)
    expect(replay.diff.changed).toBe(true) // the post was edited after this GET was recorded
    expect(replay.diff.body).toContainEqual({ path: 'data.title', recorded: 'Traced post', current: 'Traced post, edited' })
    const human = await svc(['replay', ids.show!, '--diff'])
    expect(human.stdout).toContain('body data.title: "Traced post" => "Traced post, edited"')
    // --diff reports, as git diff does: a difference is not a failure (fix and test:regression give verdicts).
    expect(human.code).toBe(0)
  })

  it('is a dry run in production, and sends with --force', async () => {
    const production = { APP_ENV: 'production' }
    const dry = await json(['log:replay', ids.list!], replaySchema, { env: production })
    expect(dry.dry_run).toBe(true)
    expect(dry.response).toBeNull()
    const human = await svc(['log:replay', ids.list!], production)
    expect(human.stdout).toContain('Dry run')
    expect(human.stdout).toContain(`GET ${recordedBase}/api/v1/posts`)
    const forced = await json(['log:replay', ids.list!, '--force'], replaySchema, { env: production })
    expect(forced.dry_run).toBe(false)
    expect(forced.response.status).toBe(200)
  })

  it('--as signs a fresh token (development only), --set changes body fields', async () => {
    const withoutToken = await json(['log:replay', ids.create!, '--anonymous'], replaySchema)
    expect(withoutToken.redacted).toEqual(['header authorization'])
    expect(withoutToken.response.status).toBe(401)
    const replay = await json(['log:replay', ids.create!, '--as', 'root@example.com', '--set', 'title=Set by replay', '--set', 'meta.tags.0=x'], replaySchema)
    expect(replay.redacted).toEqual([])
    expect(JSON.parse(replay.request.body)).toEqual({ title: 'Set by replay', body: 'hello', published_at: PUBLISHED_AT, meta: { tags: ['x'] } })
    expect(replay.response.status).toBe(201)
    expect(replay.response.body.data.title).toBe('Set by replay')
    const refused = await svc(['log:replay', ids.create!, '--as', 'root@example.com', '--force'], { APP_ENV: 'production' })
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('E_AS_PRODUCTION')
    const unknown = await svc(['log:replay', ids.create!, '--as', 'nobody@example.com'])
    expect(unknown.stderr).toContain('E_AS_UNKNOWN_USER')
  })

  it('--format prints curl and httpie commands without sending', async () => {
    const curl = await json(['log:replay', ids.create!, '--format', 'curl', '--url', 'localhost:9999', '--https', '--insecure'], replaySchema)
    expect(curl.dry_run).toBe(true)
    expect(curl.command).toContain("curl -k -X POST 'https://localhost:9999/api/v1/posts'")
    expect(curl.command).toContain(`--data-raw '{"title":"Traced post","body":"hello","published_at":"${PUBLISHED_AT}"}'`)
    const httpie = await svc(['log:replay', ids.create!, '--format', 'httpie'])
    expect(httpie.stdout.trim().startsWith(`http --raw '{"title":"Traced post","body":"hello","published_at":"${PUBLISHED_AT}"}' POST '${recordedBase}/api/v1/posts'`)).toBe(true)
    const bad = await svc(['log:replay', ids.create!, '--format', 'wget'])
    expect(bad.stderr).toContain('E_BAD_OPTION')
  })

  it('--edit sends what was saved in $EDITOR', async () => {
    const editor = requestEditor('edit-request.mjs', "request.url = request.url.replace('/api/v1/posts/1', '/api/v1/posts/999')")
    const replay = await json(['log:replay', ids.show!, '--edit'], replaySchema, { env: { EDITOR: editor } })
    expect(replay.request.url).toBe(`${recordedBase}/api/v1/posts/999?view=full`)
    expect(replay.response.status).toBe(404)
  })

  it('--edit that gives a GET a body is E_EDIT_INVALID, not E_UNEXPECTED', async () => {
    const editor = requestEditor('edit-request-body.mjs', "request.body = { title: 'x' }")
    const run = await svc(['log:replay', ids.show!, '--edit'], { EDITOR: editor })
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('error [E_EDIT_INVALID]: The edited request is a GET with a body, which HTTP clients do not send')
  })

  it('--url sends a body with its Content-Length, as it was recorded, not chunked', async () => {
    const received: Array<{ headers: Record<string, unknown>; body: string }> = []
    const server = createHttpServer((request, response) => {
      let body = ''
      request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk))
      request.on('end', () => {
        received.push({ headers: request.headers, body })
        response.writeHead(201, { 'content-type': 'application/json' }).end('{"ok":true}')
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const { port } = server.address() as AddressInfo
      const run = await svc(['log:replay', ids.create!, '--url', `http://127.0.0.1:${port}`])
      expect(run.code, run.stderr).toBe(0)
      expect(received).toHaveLength(1)
      const body = JSON.stringify({ title: 'Traced post', body: 'hello', published_at: PUBLISHED_AT })
      expect(received[0]!.body).toBe(body)
      expect(received[0]!.headers['content-length']).toBe(String(Buffer.byteLength(body)))
      expect(received[0]!.headers['transfer-encoding']).toBeUndefined()
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  })

  it('--url sends to a running server', async () => {
    const server = startSvc(['serve', '--port', '0'], { cwd: app.dir })
    try {
      const [, base] = await waitForLine(server.stdout, /listening on (http:\/\/\S+)/)
      const replay = await json(['log:replay', ids.list!, '--url', base!], replaySchema)
      expect(replay.target).toBe(base)
      expect(replay.response.status).toBe(200)
      expect(replay.response.trace_id).toMatch(/^svc_[0-9a-f]{32}$/)
    } finally {
      server.kill('SIGTERM')
      await new Promise((resolve) => server.once('close', resolve))
    }
  })

  it('--url https:// checks the certificate, --insecure skips the check, --format prints -k', async () => {
    const tls = await startHttpsServer()
    try {
      const refused = await svc(['log:replay', ids.create!, '--url', tls.base, '--json'])
      expect(refused.code).toBe(1)
      expect(JSON.parse(refused.stdout).error).toMatchObject({ code: 'E_REPLAY_TLS', exit_code: 1 })
      expect(refused.stderr).toContain('E_REPLAY_TLS')
      expect(refused.stderr).toMatch(/certificate/i)
      expect(refused.stderr).toContain('--insecure')
      expect(tls.seen).toEqual([])

      const replay = await json(['log:replay', ids.create!, '--url', tls.base, '--insecure', '--diff'], replaySchema)
      // The recorded token was redacted: the server gets a fresh one for the user who made the request.
      expect(replay).toMatchObject({ target: tls.base, dry_run: false, redacted: [], signed_in_as: expect.stringContaining('@example.com') })
      expect(replay.request.url).toBe(`${tls.base}/api/v1/posts`)
      expect(tls.seen).toHaveLength(1)
      expect(tls.seen[0]).toMatchObject({ method: 'POST', path: '/api/v1/posts', body: `{"title":"Traced post","body":"hello","published_at":"${PUBLISHED_AT}"}` })
      // The replay marker, signed with the project's key (storage/keys/replay-marker.key): only svc's own replays read as replays.
      expect(tls.seen[0]!.headers['x-svc-replay-of']).toMatch(new RegExp(`^${ids.create}\\.[A-Za-z0-9_-]{43}$`))
      expect(tls.seen[0]!.headers['content-type']).toBe('application/json')
      expect(tls.seen[0]!.headers.authorization).toMatch(/^Bearer ey/)
      expect(replay.response).toMatchObject({ status: 202, body: { success: true, data: { seen_over: 'tls' } } })
      expect(replay.diff.status).toEqual({ recorded: 201, current: 202 })

      const port = new URL(tls.base).port
      const curl = await json(['log:replay', ids.create!, '--format', 'curl', '--url', `127.0.0.1:${port}`, '--https', '--insecure'], replaySchema)
      expect(curl).toMatchObject({ dry_run: true, response: null, target: tls.base })
      expect(curl.command).toMatch(new RegExp(`^curl -k -X POST '${tls.base.replace(/\./g, '\\.')}/api/v1/posts'`))
      const httpie = await svc(['log:replay', ids.create!, '--format', 'httpie', '--url', tls.base, '--insecure'])
      expect(httpie.stdout).toContain(`http --verify=no --raw '{"title":"Traced post","body":"hello","published_at":"${PUBLISHED_AT}"}' POST '${tls.base}/api/v1/posts'`)
      const strict = await json(['log:replay', ids.create!, '--format', 'curl', '--url', tls.base], replaySchema)
      expect(strict.command).toMatch(/^curl -X POST 'https:/)
      expect(tls.seen).toHaveLength(1) // printing a command sends nothing
    } finally {
      await tls.close()
    }
  })

  it('--test writes a vitest regression test that passes', async () => {
    const replay = await json(['log:replay', ids.nPlusOne!, '--test'], replaySchema)
    expect(replay.test_file).toMatch(/^tests\/regression\/get-loop-[0-9a-f]{8}\.test\.ts$/)
    const source = app.read(replay.test_file)
    expect(source).toContain("from 'svc/regression'")
    const run = await runVitestIn(app.dir, replay.test_file)
    expect(run.code, run.stdout + run.stderr).toBe(0)
    expect(run.stdout).toMatch(/1 passed/)
  })
})

interface SeenRequest {
  method: string
  path: string
  headers: Record<string, string | string[] | undefined>
  body: string
}

/**
 * An HTTPS server on 127.0.0.1 with a self-signed certificate made now by
 * openssl (no key is kept in the repository), recording what it receives.
 */
async function startHttpsServer(): Promise<{ base: string; seen: SeenRequest[]; close(): Promise<void> }> {
  const key = app.path('tls', 'key.pem')
  const cert = app.path('tls', 'cert.pem')
  mkdirSync(app.path('tls'), { recursive: true })
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], {
      stdio: 'pipe',
    })
  } catch (error) {
    throw new Error(`this test makes its certificate with openssl, which failed or is missing: ${(error as Error).message}`)
  }
  const seen: SeenRequest[] = []
  const server = createHttpsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (request, response) => {
    let body = ''
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk))
    request.on('end', () => {
      seen.push({ method: request.method!, path: request.url!, headers: request.headers, body })
      response.writeHead(202, { 'content-type': 'application/json' }).end(JSON.stringify({ success: true, data: { seen_over: 'tls' } }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    base: `https://127.0.0.1:${port}`,
    seen,
    close: () => new Promise<void>((resolve, reject) => {
      server.closeAllConnections()
      server.close((error) => (error ? reject(error) : resolve()))
    }),
  }
}

describe('test:regression', () => {
  it('passes when nothing changed, and exits 1 naming the change when a response changes', async () => {
    const same = await json(['test:regression', '--path', '/api/v1/posts/archive'], regressionSchema)
    expect(same.changed).toBe(0)
    const posts = await json(['test:regression', '--method', 'GET', '--path', '/loop'], regressionSchema)
    expect(posts).toMatchObject({ total: 1, same: 1, changed: 0 })

    const original = app.read('routes/web.ts')
    app.write('routes/web.ts', original.replace('return { looped: 6 }', "return { looped: 6, extra: 'new field' }"))
    try {
      const changed = await json(['test:regression', '--path', '/loop'], regressionSchema, { exitCode: 1 })
      expect(changed.changed).toBe(1)
      expect(changed.results[0].diff.body).toContainEqual({ path: 'data.extra', recorded: null, current: 'new field' })
      const human = await svc(['test:regression', '--path', '/loop'])
      expect(human.code).toBe(1)
      expect(human.stdout).toContain('changed GET /loop')
      expect(human.stderr).toContain('[1/1] GET /loop') // progress, plain lines when not a terminal
    } finally {
      app.write('routes/web.ts', original)
    }
  })

  it("keeps the app's console output off stdout: --json prints only the document", async () => {
    const original = app.read('routes/web.ts')
    app.write('routes/web.ts', original.replace('return { looped: 6 }', "console.log('looped six times')\n    return { looped: 6 }"))
    try {
      const result = await svc(['test:regression', '--path', '/loop', '--json'])
      expect(result.code, result.stderr).toBe(0)
      expect(JSON.parse(result.stdout)).toMatchObject({ total: 1, same: 1 })
      expect(result.stderr).toContain('looped six times')
    } finally {
      app.write('routes/web.ts', original)
    }
  })

  it('skips writes unless --all, which replays them against a fresh database', async () => {
    const safe = await json(['test:regression', '--method', 'POST', '--path', '/api/v1/posts'], regressionSchema, { exitCode: 0 })
    expect(safe.skipped).toBeGreaterThan(0)
    expect(safe.results.every((r: { status: string }) => r.status === 'skipped')).toBe(true)
    const all = await json(['test:regression', '--all', '--method', 'POST', '--path', '/api/v1/posts', '--status', '2xx', '--limit', '1'], regressionSchema, {
      exitCode: 0,
    })
    expect(all.results[0]).toMatchObject({ status: 'same' })
    // A registration's password was redacted: not replayable, and said so.
    const register = await json(['test:regression', '--all', '--method', 'POST', '--path', '/api/auth/register', '--limit', '1'], regressionSchema)
    expect(register.results[0]).toMatchObject({ status: 'skipped' })
    expect(register.results[0].reason).toContain('body.password')
  })
})

describe('api:why, debug:last, fix', () => {
  const kinds: Array<[string, string, number, string | null]> = [
    ['missingToken', 'missing_token', 401, 'auth'],
    ['invalidToken', 'invalid_token', 401, 'auth'],
    ['expiredToken', 'expired_token', 401, 'auth'],
    ['tokenVersion', 'token_version', 401, 'auth'],
    ['inactive', 'inactive', 403, 'auth'],
    ['role', 'role', 403, 'auth'],
    ['throttle', 'throttle', 429, 'throttle'],
    ['validation', 'validation', 422, null],
    ['badRequest', 'bad_request', 400, null],
    ['notFound', 'not_found', 404, null],
    ['methodNotAllowed', 'method_not_allowed', 405, null],
    ['exception', 'exception', 500, null],
  ]
  for (const [name, kind, status, middleware] of kinds) {
    it(`explains ${kind}`, async () => {
      const trace = (await json(['log:trace', ids[name]!], traceSchema)).trace
      const why = await json<WhyJson>(['api:why', trace.method, trace.path, '--id', ids[name]!], whySchema)
      expect(why.trace!.trace_id).toBe(ids[name])
      expect(why.failure).toMatchObject({ kind, status })
      if (middleware !== null) expect(why.failure!.middleware ?? '').toContain(middleware)
      expect(why.failure!.explanation.length).toBeGreaterThan(10)
      if (kind === 'validation') expect(why.failure!.errors).toHaveProperty('title')
      if (kind === 'role') expect(why.failure!.explanation).toContain('admin')
      if (kind === 'exception') {
        expect(why.failure!.location!.file).toContain(join('routes', 'web.ts'))
        expect(why.failure!.explanation).toContain('TypeError: the widget exploded')
      }
      if (kind === 'method_not_allowed') expect(why.routing.allowed).toEqual(['GET', 'HEAD', 'POST', 'OPTIONS'])
    })
  }

  const apiKeyCases: Array<[string, number, string, RegExp]> = [
    ['apiKeyMissing', 401, 'apikey:exports:read', /no x-api-key header was sent/i],
    ['apiKeyWrong', 401, 'apikey:exports:read', /matches no stored key/i],
    ['apiKeyRevoked', 401, 'apikey:exports:read', /revoked or expired/i],
    ['apiKeyScope', 403, 'apikey:exports:read', /lacks the scope exports:read/i],
    ['apiKeyPlainWrong', 401, 'apikey', /does not equal API_KEY/i],
  ]
  for (const [name, status, alias, reason] of apiKeyCases) {
    it(`explains api_key: ${name}`, async () => {
      const trace = (await json(['log:trace', ids[name]!], traceSchema)).trace
      expect(trace.headers['x-api-key']).toBe(name === 'apiKeyMissing' ? undefined : '[REDACTED]')
      const why = await json<WhyJson>(['api:why', trace.method, trace.path, '--id', ids[name]!], whySchema)
      expect(why.routing.matched!.middleware).toContain(alias)
      expect(why.failure).toMatchObject({ kind: 'api_key', status })
      expect(why.failure!.middleware).toMatch(/apiKeyMiddleware$/i)
      expect(why.failure!.explanation).toContain(`${alias} middleware refused`)
      expect(why.failure!.explanation).toMatch(reason)
    })
  }

  it('api:why without --id explains the latest trace of an api-key route; a passing key is no failure', async () => {
    const latest = await json<WhyJson>(['api:why', 'POST', '/webhooks/billing'], whySchema)
    expect(latest.trace!.trace_id).toBe(ids.apiKeyPlainWrong)
    expect(latest.failure!.kind).toBe('api_key')
    const human = await svc(['api:why', 'GET', '/exports', '--id', ids.apiKeyScope!])
    expect(human.stdout).toContain('api_key (403 Forbidden) refused by middleware scopedApiKeyMiddleware')
    expect(human.stdout).toMatch(/lacks the scope exports:read/)
    const ok = await json<WhyJson>(['api:why', 'GET', '/exports', '--id', ids.apiKeyOk!], whySchema)
    expect(ok.failure).toBeNull()
  })

  it('explains routing without a trace: constraints, methods, prefixes, fallback', async () => {
    const slug = await json<WhyJson>(['api:why', 'GET', '/api/v1/posts/Not_A_Slug'], whySchema)
    expect(slug.routing.outcome).toBe('fallback')
    expect(slug.routing.candidates).toContainEqual(expect.objectContaining({ path: '/api/v1/posts/{id}', reason: 'constraint' }))
    expect(slug.routing.candidates).toContainEqual(expect.objectContaining({ path: '/api/v1/posts/{slug}', reason: 'constraint' }))
    const prefix = await json<WhyJson>(['api:why', 'GET', '/api/v3/posts/1'], whySchema)
    expect(prefix.routing.candidates).toContainEqual(expect.objectContaining({ path: '/api/v1/posts/{id}', reason: 'prefix' }))
    const matched = await json<WhyJson>(['api:why', 'get', '/api/v1/posts/7'], whySchema)
    expect(matched.routing).toMatchObject({ outcome: 'matched', matched: { path: '/api/v1/posts/{id}', params: { id: '7' }, handler: 'showPost' } })
    const options = await json<WhyJson>(['api:why', 'OPTIONS', '/api/v1/posts'], whySchema)
    expect(options.routing.outcome).toBe('options')
    const human = await svc(['api:why', 'GET', '/api/v1/posts/Not_A_Slug'])
    expect(human.stdout).toContain('{id}: "Not_A_Slug" does not match')
  })

  it('uses the latest trace of the request when no --id is given, and replays with --fix', async () => {
    const why = await json<WhyJson>(['api:why', 'GET', '/boom', '--fix'], whySchema)
    expect(why.trace!.status_code).toBe(500)
    expect(why.replay!.response!.status).toBe(500)
  })

  it('debug:last (why) analyses the last failed request', async () => {
    const why = await json<WhyJson>(['why'], whySchema)
    expect(why.trace!.status_code).toBeGreaterThanOrEqual(400)
    const same = await json<WhyJson>(['debug:last'], whySchema)
    expect(same.trace!.trace_id).toBe(why.trace!.trace_id)
  })

  it('fix: exit 1 while the trace still fails, 0 once the code is fixed, 2 in a production dry run', async () => {
    const still = await json(['fix', ids.exception!], fixSchema, { exitCode: 1 })
    expect(still).toMatchObject({ fixed: false, recorded_status: 500, current_status: 500 })
    const dry = await json(['fix', ids.exception!], fixSchema, { exitCode: 2, env: { APP_ENV: 'production' } })
    expect(dry.dry_run).toBe(true)
    const original = app.read('routes/web.ts')
    app.write('routes/web.ts', original.replace("throw new TypeError('the widget exploded')", "return { fixed: true }"))
    try {
      const fixed = await json(['fix', ids.exception!], fixSchema)
      expect(fixed).toMatchObject({ fixed: true, recorded_status: 500, current_status: 200 })
      const human = await svc(['fix', ids.exception!])
      expect(human.code).toBe(0)
      expect(human.stdout).toContain('Fixed')
    } finally {
      app.write('routes/web.ts', original)
    }
  })
})

describe('db:why', () => {
  it('lists the statements that touched a row, newest first, with their trace ids', async () => {
    const why = await json(['db:why', 'posts', '1'], dbWhySchema)
    const kinds = why.statements.map((s: { kind: string }) => s.kind)
    expect(kinds).toContain('insert')
    expect(kinds).toContain('update')
    expect(kinds).toContain('select')
    const insert = why.statements.find((s: { kind: string }) => s.kind === 'insert')
    expect(insert.trace_id).toBe(ids.create)
    const update = why.statements.find((s: { kind: string; trace_id: string }) => s.kind === 'update' && s.trace_id === ids.update)
    expect(update).toBeDefined()
    const times = why.statements.map((s: { timestamp: string }) => Date.parse(s.timestamp))
    expect(times).toEqual([...times].sort((a, b) => b - a))
    const none = await json(['db:why', 'posts', '424242'], dbWhySchema)
    expect(none.statements).toEqual([])
    const bad = await svc(['db:why', 'posts;drop', '1'])
    expect(bad.stderr).toContain('E_BAD_ARGUMENTS')
  })
})

describe('--slow with no value, followed by another option', () => {
  it('trace:list --slow --method GET and log:trace --slow --limit 2: the threshold alone, the next option kept', async () => {
    const list = await json<TraceListJson>(['trace:list', '--slow', '--method', 'GET'], traceListSchema, { env: { TRACE_SLOW_MS: '0' } })
    expect(list.filters).toMatchObject({ slow_ms: 0, method: 'GET' })
    expect(list.traces.length).toBeGreaterThan(0)
    expect(list.traces.every((trace) => trace.method === 'GET')).toBe(true)
    const search = await json<TraceListJson>(['log:trace', '--slow', '--limit', '2'], traceListSchema, { env: { TRACE_SLOW_MS: '0' } })
    expect(search.filters).toMatchObject({ slow_ms: 0, limit: 2 })
    expect(search.traces).toHaveLength(2)
    const valued = await json<TraceListJson>(['trace:list', '--slow', '250'], traceListSchema)
    expect(valued.filters.slow_ms).toBe(250)
  })
})

describe('log:cleanup', () => {
  it('with TRACE_RETENTION_DAYS=0 (keep every trace) and no --days: refuses and deletes nothing (it deleted what was older than 7 days)', async () => {
    const before = (await json<TraceListJson>(['trace:list', '--limit', '1000'], traceListSchema)).traces.length
    expect(before).toBeGreaterThan(0)
    const refused = await runSvc(['log:cleanup', '--json'], { cwd: app.dir, env: { TRACE_RETENTION_DAYS: '0' } })
    expect(refused.exitCode).toBe(1)
    expect(JSON.parse(refused.stdout)).toEqual({
      error: {
        code: 'E_NO_RETENTION',
        message: 'TRACE_RETENTION_DAYS is 0: every trace is kept, so log:cleanup has no age to delete by; nothing was deleted',
        fix: 'pass --days N to delete traces older than N days (--days 0 deletes all), or set TRACE_RETENTION_DAYS',
        exit_code: 1,
      },
    })
    expect((await json<TraceListJson>(['trace:list', '--limit', '1000'], traceListSchema)).traces).toHaveLength(before)
    // --days still decides on its own.
    const counted = await json(['log:cleanup', '--days', '0', '--dry-run'], cleanupSchema, { env: { TRACE_RETENTION_DAYS: '0' } })
    expect(counted).toMatchObject({ days: 0, dry_run: true })
  })

  it('deletes traces older than --days (0: all)', async () => {
    const result = await json(['log:cleanup', '--days', '0'], cleanupSchema)
    expect(result.deleted).toBeGreaterThan(0)
    expect(result.remaining).toBe(0)
    const list = await json<TraceListJson>(['trace:list'], traceListSchema)
    expect(list.traces).toEqual([])
  })
})
