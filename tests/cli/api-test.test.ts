/**
 * `svc t` (api:test) against the example served in this process: typed
 * fields, query and headers; `--as` registers a user (development), keeps
 * its tokens in storage/tokens/ with mode 600, reuses them, renews them with
 * the refresh token once they expire (a server with JWT_TTL=3), and logs in
 * again after a logout; `--loop` statistics; the errors a user meets first.
 * Then `--as` in a project made by `svc new` (its own auth routes and .env).
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseRequestItems } from '../../cli/http-client/request-items.ts'
import { tempDir } from '../helpers/app.ts'
import { copyExampleApp, linkRepoModules, type AppCopy } from '../helpers/cli.ts'
import { runSvc, startSvc, svcJson, type RunningSvc } from '../helpers/run-svc.ts'

let app: AppCopy
let server: RunningSvc
let url: string

async function serve(env: Record<string, string>): Promise<{ server: RunningSvc; url: string }> {
  const running = startSvc(['serve', '--port', '0', '--migrate'], { cwd: app.dir, env })
  const [, address] = await running.waitFor(/^svc listening on (http:\/\/127\.0\.0\.1:\d+)/)
  return { server: running, url: address! }
}

beforeAll(async () => {
  app = copyExampleApp()
  app.addRoutes(
    'web.ts',
    `  r.post('/echo', async (c) => ({ body: await c.body(), query: Object.fromEntries(c.url.searchParams), demo: c.headers.get('x-demo') }))
  let denied = 0
  r.post('/deny', () => {
    denied++
    throw new HttpError(401, 'Not you')
  })
  r.get('/denied', () => ({ denied }))`,
  )
  app.write('routes/web.ts', app.read('routes', 'web.ts').replace("import { defineRoutes } from 'svc'", "import { defineRoutes, HttpError } from 'svc'"))
  ;({ server, url } = await serve({ JWT_TTL: '3600' }))
})
afterAll(async () => {
  await server?.stop()
  app.remove()
})

/** A port nothing listens on: one the OS just handed out and took back. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo
      probe.close(() => resolve(port))
    })
  })
}

const session = (name: string) => JSON.parse(readFileSync(app.path('storage', 'tokens', `${name}.json`), 'utf8')) as { token: string; refresh_token: string; expires_at: number; email: string; password: string | null }
const t = (argv: string[], env: Record<string, string> = {}) => runSvc(['t', ...argv, `--url=${url}`], { cwd: app.dir, env })

describe('svc t', () => {
  it('sends typed fields as JSON, name==value as the query, Header:value as a header; prints status, time, trace id and body', async () => {
    const answer = await svcJson(['t', 'POST', '/echo', 'title=Hello', 'count=3', 'ratio=-1.5', 'draft=false', 'code=007', 'tags:=["a",1]', 'meta:={"x":null}', 'q==a b', 'X-Demo:yes', `--url=${url}`], { cwd: app.dir })
    expect(answer).toMatchObject({ request: { method: 'POST', url: `${url}/echo?q=a+b`, as: null }, status: 200, status_text: 'OK' })
    expect(answer.body.data).toEqual({
      body: { title: 'Hello', count: 3, ratio: -1.5, draft: false, code: '007', tags: ['a', 1], meta: { x: null } },
      query: { q: 'a b' },
      demo: 'yes',
    })
    expect(answer.trace_id).toMatch(/^svc_[0-9a-f]+$/)
    expect(answer.duration_ms).toBeGreaterThan(0)

    const human = await t(['GET', '/health/live'])
    expect(human.exitCode, human.stderr).toBe(0)
    const [requestLine, statusLine, ...body] = human.stdout.trimEnd().split('\n')
    expect(requestLine).toBe(`GET ${url}/health/live`)
    expect(statusLine).toMatch(/^200 OK {2}\d+(\.\d+)? (ms|s) {2}svc_[0-9a-f]+$/)
    expect(JSON.parse(body.join('\n'))).toEqual({ success: true, data: { status: 'ok' } })

    // --url=:<port> is this machine.
    expect((await svcJson(['t', 'GET', '/health/live', `--url=:${new URL(url).port}`], { cwd: app.dir })).status).toBe(200)
    // No method: GET, or POST when fields are given.
    expect((await svcJson(['t', '/health/live', `--url=${url}`], { cwd: app.dir })).request.method).toBe('GET')
    expect((await svcJson(['t', '/echo', 'a=1', `--url=${url}`], { cwd: app.dir })).body.data.body).toEqual({ a: 1 })
  })

  it('--as registers the user in development, keeps its tokens (mode 600) and reuses them', async () => {
    const first = await t(['GET', '/api/auth/me', '--as=alice'])
    expect(first.exitCode, first.stderr).toBe(0)
    expect(first.stderr).toContain('--as=alice: registered alice@example.com (APP_ENV=development)')
    expect(first.stdout).toContain('"email": "alice@example.com"')
    expect(statSync(app.path('storage', 'tokens')).mode & 0o777).toBe(0o700)
    expect(statSync(app.path('storage', 'tokens', 'alice.json')).mode & 0o777).toBe(0o600)
    const kept = session('alice')
    expect(kept.email).toBe('alice@example.com')
    expect(kept.password).toEqual(expect.any(String))

    // Reused: no login, no refresh, the same token.
    const again = await svcJson(['t', 'POST', '/api/v1/posts', 'title=Hello', 'body=World', '--as=alice', `--url=${url}`], { cwd: app.dir })
    expect(again.status).toBe(201)
    expect(again.request.as).toBe('alice')
    expect(session('alice')).toEqual(kept)

    // A logout refuses every token of the user: svc t gets a new one (the kept password) and sends the request again.
    const logout = await fetch(`${url}/api/auth/logout`, { method: 'POST', headers: { authorization: `Bearer ${kept.token}` } })
    expect(logout.status).toBe(200)
    const afterLogout = await t(['GET', '/api/auth/me', '--as=alice'])
    expect(afterLogout.exitCode, afterLogout.stderr).toBe(0)
    expect(afterLogout.stdout).toMatch(/^200 OK/m)
    expect(session('alice').token).not.toBe(kept.token)

    // A handler's own 401 (no invalid_token challenge) is the answer: not sent a second time.
    const denied = await t(['POST', '/deny', '--as=alice'])
    expect(denied.stdout).toMatch(/^401 Unauthorized/m)
    expect((await svcJson(['t', 'GET', '/denied', `--url=${url}`], { cwd: app.dir })).body.data).toEqual({ denied: 1 })
  })

  it('an existing user whose password svc does not know: a clear error, or SVC_AS_PASSWORD; production never registers', async () => {
    await fetch(`${url}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Dora', email: 'dora@example.com', password: 'correct horse battery', password_confirmation: 'correct horse battery' }),
    })
    const unknown = await t(['GET', '/api/auth/me', '--as=dora'])
    expect(unknown.exitCode).toBe(1)
    expect(unknown.stderr).toContain('error [E_AS_PASSWORD]: dora@example.com exists and svc does not know its password')
    expect(unknown.stderr).toContain('SVC_AS_PASSWORD=<password> svc t ... --as=dora')

    const wrong = await t(['GET', '/api/auth/me', '--as=dora'], { SVC_AS_PASSWORD: 'wrong password' })
    expect(wrong.stderr).toContain('error [E_AS_LOGIN]: Could not log in as dora@example.com: 401')

    const known = await t(['GET', '/api/auth/me', '--as=dora@example.com'], { SVC_AS_PASSWORD: 'correct horse battery' })
    expect(known.exitCode, known.stderr).toBe(0)
    expect(known.stdout).toContain('"name": "Dora"')
    expect(session('dora@example.com').password).toBeNull() // a password the user gave is not kept

    const production = await t(['GET', '/api/auth/me', '--as=erin'], { APP_ENV: 'production', JWT_SECRET: 'x'.repeat(40) })
    expect(production.exitCode).toBe(1)
    expect(production.stderr).toContain("error [E_AS_PASSWORD]: --as=erin needs erin@example.com's password (svc registers users only in development and test)")
  })

  it('--loop=N sends it N times and prints min, median, p95 and max', async () => {
    const result = await svcJson(['t', 'GET', '/health/live', '--loop=5', `--url=${url}`], { cwd: app.dir })
    expect(result.loop).toMatchObject({ count: 5, statuses: { '200': 5 } })
    const { min_ms, median_ms, p95_ms, max_ms } = result.loop
    expect(min_ms).toBeGreaterThan(0)
    expect(min_ms <= median_ms && median_ms <= p95_ms && p95_ms <= max_ms).toBe(true)
    expect(result.last.trace_id).toMatch(/^svc_/)

    const human = await t(['GET', '/health/live', '--loop=3'])
    expect(human.stdout).toContain(`GET ${url}/health/live x 3`)
    expect(human.stdout).toContain('statuses  200 x 3')
    expect(human.stdout).toMatch(/^min .+ {2}median .+ {2}p95 .+ {2}max .+/m)
    // Not a terminal: progress is plain lines on stderr.
    expect(human.stderr).toContain('GET /health/live x 3: 3/3')
  })

  it('clear errors: nothing listening, a bad item, a body on GET, a mistyped method', async () => {
    const port = await closedPort()
    const closed = await runSvc(['t', 'GET', '/health/live', `--url=127.0.0.1:${port}`], { cwd: app.dir })
    expect(closed.stderr).toContain(`error [E_CONNECT]: Nothing answers at http://127.0.0.1:${port} (connection refused)`)
    expect(closed.stderr).toContain('svc serve')
    expect((await t(['POST', '/echo', 'oops'])).stderr).toContain('error [E_BAD_ARGUMENTS]: "oops" is not a request item')
    expect((await t(['POST', '/echo', 'tags:=[1,'])).stderr).toContain('tags:= takes JSON')
    expect((await t(['GET', '/echo', 'a=1'])).stderr).toContain('GET sends no body, but fields were given (a)')
    const typo = await t(['POTS', '/echo'])
    expect(typo.stderr).toContain('error [E_BAD_ARGUMENTS]: Unknown method "POTS"')
    expect(typo.stderr).toContain('did you mean POST?')
  })
})

describe('svc t --as with a short JWT_TTL', () => {
  let short: { server: RunningSvc; url: string }
  beforeAll(async () => {
    await server.stop()
    // 3 s: a token issued late in a second still lives 2 s, time enough to be sent on a loaded machine.
    short = await serve({ JWT_TTL: '3' })
    url = short.url
  })
  afterAll(async () => {
    await short.server.stop()
    ;({ server, url } = await serve({ JWT_TTL: '3600' }))
  })

  /** Polls until the server refuses `token` (it expired): a condition, not a sleep. */
  async function untilRefused(token: string): Promise<void> {
    for (;;) {
      const answer = await fetch(`${url}/api/auth/me`, { headers: { authorization: `Bearer ${token}` } })
      if (answer.status === 401) return
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }

  it('renews an expired access token with the refresh token (rotated), before sending or after a 401', async () => {
    expect((await t(['GET', '/api/auth/me', '--as=frank'])).exitCode).toBe(0)
    const issued = session('frank')
    await untilRefused(issued.token)

    // Known to be expired: renewed before the request is sent.
    const renewed = await t(['GET', '/api/auth/me', '--as=frank'])
    expect(renewed.exitCode, renewed.stderr).toBe(0)
    expect(renewed.stderr).toContain('--as=frank: access token renewed with the refresh token')
    expect(renewed.stdout).toMatch(/^200 OK/m)
    const next = session('frank')
    expect(next.refresh_token).not.toBe(issued.refresh_token)
    const reuse = await fetch(`${url}/api/auth/refresh`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ refresh_token: issued.refresh_token }) })
    expect(reuse.status).toBe(401) // the old refresh token was revoked by the rotation

    // Looks valid but the server refuses it (401): renewed, and the request sent again.
    await untilRefused(next.token)
    writeFileSync(app.path('storage', 'tokens', 'frank.json'), JSON.stringify({ ...next, expires_at: Date.now() + 3_600_000 }))
    const retried = await svcJson(['t', 'GET', '/api/auth/me', '--as=frank', `--url=${url}`], { cwd: app.dir })
    expect(retried.status).toBe(200)
    expect(retried.body.data.email).toBe('frank@example.com')
    expect(session('frank').refresh_token).not.toBe(next.refresh_token)
  })
})

describe('svc t in a project made by svc new', () => {
  it('--as registers a user through the project\'s auth routes and calls a route behind auth', { timeout: 120_000 }, async () => {
    const work = tempDir('svc-new-t-')
    let running: RunningSvc | undefined
    try {
      expect((await runSvc(['new', 'demo'], { cwd: work.path })).exitCode).toBe(0)
      const project = join(work.path, 'demo')
      linkRepoModules(project)
      running = startSvc(['serve', '--port', '0', '--migrate'], { cwd: project })
      const [, address] = await running.waitFor(/^svc listening on (http:\/\/127\.0\.0\.1:\d+)/)
      const greeted = await runSvc(['t', 'GET', '/api/v1/me/greeting', '--as=alice', `--url=${address}`], { cwd: project })
      expect(greeted.exitCode, greeted.stderr).toBe(0)
      expect(greeted.stdout).toMatch(/^200 OK/m)
      expect(greeted.stdout).toContain('"message": "Hello, alice!"')
      expect(statSync(join(project, 'storage', 'tokens', 'alice.json')).mode & 0o777).toBe(0o600)
    } finally {
      await running?.stop()
      work.remove()
    }
  })
})

describe('request items', () => {
  it('the separator that comes first decides (the longer at the same place); values are typed', () => {
    expect(parseRequestItems(['a=b:c', 'X-Id:a=b', 'n:=1', 'q==1', 'big=9007199254740993', 'e=1e3', 'neg=-0', 'empty='])).toEqual({
      body: { a: 'b:c', n: 1, big: '9007199254740993', e: 1000, neg: -0, empty: '' },
      query: [['q', '1']],
      headers: [['X-Id', 'a=b']],
    })
    expect(parseRequestItems(['q==x'])).toEqual({ body: null, query: [['q', 'x']], headers: [] })
    expect(() => parseRequestItems(['=x'])).toThrow('"=x" is not a request item')
  })
})
