/**
 * The analysis behind `api:why` and `why`, in-process on a traced app with
 * authentication: the routing half comes from `app.explain` (the real table),
 * the failure half from the trace. A wrong password is the login handler's
 * "invalid credentials", not a missing token blamed on the throttle before it.
 * Without a stack (APP_DEBUG off), the layer that answered is the one whose
 * middleware did not call next() (`called_next` in the timeline), not a guess
 * from the middleware's name; records written before that field still get the guess.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { authMigrations, CONN_INFO, authPlugin, defineRoutes, HttpError, memoryMailer, migrate, TRACE_HEADER, type Middleware } from 'svc'
import type { TraceRecord } from 'svc/trace'
import { answeringLayer, explainFailure } from '../../cli/trace/why.ts'
import { PASSWORD, registerUser, SECRET } from '../auth/helpers.ts'
import { createTestClient, type TestClient } from 'svc/testing'
import { request, tracedApp, type TracedApp } from '../trace/helpers.ts'

let traced: TracedApp
let client: TestClient

beforeAll(async () => {
  traced = await tracedApp({
    vars: { JWT_SECRET: SECRET, PASSWORD_HASH_MEMORY_KIB: '64', PASSWORD_HASH_ITERATIONS: '1', PASSWORD_HASH_PARALLELISM: '1' },
    plugins: [authPlugin({ mailer: memoryMailer() })],
    api: defineRoutes((r) => {
      // The handler refuses a code in the body with a 401 of its own, behind an auth middleware that let the request through.
      r.post('/confirm', function confirmCode() {
        throw new HttpError(401, 'Invalid token: the confirmation code is wrong')
      }).middleware('auth')
      // A middleware whose name says nothing of rate limits answers 429 without calling next().
      r.get('/gated', function gated() {
        return { ok: true }
      }).middleware(gate)
      // The same 429 from the handler, behind a middleware that passes every request on.
      r.get('/busy', function busy() {
        throw new HttpError(429, 'Slow down')
      }).middleware(passOn)
      // An app middleware that only awaits next() before svc's auth (response-time in a project from svc new).
      r.get('/timed', function timedHandler() {
        return { ok: true }
      }).middleware(timed, 'auth')
      r.get('/teapot', function teapot() {
        throw new HttpError(418, 'No coffee here')
      }).middleware(passOn)
    }),
  })
  await migrate(traced.app.database!, authMigrations)
  client = createTestClient(traced.app)
})
afterAll(() => traced.close())

const gate: Middleware = async function gate() {
  throw new HttpError(429, 'Slow down')
}
const timed: Middleware = async function timed(_c, next) {
  const response = await next()
  return response
}
const passOn: Middleware = async function passOn(_c, next) {
  return next()
}

async function recordOf(response: Response) {
  await traced.tracer.flush()
  return (await traced.store.get(response.headers.get(TRACE_HEADER)!))!
}

describe('why a traced request failed', () => {
  it('a wrong password: invalid credentials, answered by the login handler (not the throttle middleware)', async () => {
    const { email } = await registerUser(client)
    const response = await traced.app.fetch(request('POST', '/api/auth/login', { json: { email, password: `${PASSWORD}!` } }), { [CONN_INFO]: { remoteAddress: '10.1.1.1' } })
    expect(response.status).toBe(401)
    const record = await recordOf(response)
    const routing = await traced.app.explain(record.method, record.path)
    expect(routing.matched).toMatchObject({ path: '/api/auth/login', middleware: ['throttle:60,1'] })
    const failure = explainFailure(record, routing)!
    expect(failure).toMatchObject({ kind: 'invalid_credentials', status: 401, message: 'Invalid credentials', middleware: null })
    expect(failure.explanation).toMatch(/^Invalid credentials: the email or the password is wrong/)
  })

  it('no token on a protected route is still missing_token, refused by the auth middleware', async () => {
    const response = await traced.app.fetch(request('GET', '/api/auth/me'), { [CONN_INFO]: { remoteAddress: '10.1.1.2' } })
    const failure = explainFailure(await recordOf(response), await traced.app.explain('GET', '/api/auth/me'))!
    expect(failure).toMatchObject({ kind: 'missing_token', status: 401, middleware: 'auth' })
  })

  // svc's auth threw: the app middleware before it only awaited next(), so it is not where the 401 came from.
  it("names the route, not an app middleware that awaited next(), when svc's own middleware refused", async () => {
    const response = await traced.app.fetch(request('GET', '/api/timed'), { [CONN_INFO]: { remoteAddress: '10.1.1.4' } })
    const record = await recordOf(response)
    const routing = await traced.app.explain('GET', '/api/timed')
    expect(record.exception).toMatchObject({ status: 401, location: null })
    const failure = explainFailure(record, routing)!
    expect(failure).toMatchObject({ kind: 'missing_token', middleware: 'auth' })
    expect(routing.matched!.source).not.toBeNull()
    expect(failure.location).toEqual(routing.matched!.source)
  })

  it('an invalid body: validation, with the field errors', async () => {
    const response = await traced.app.fetch(request('POST', '/api/auth/login', { json: { email: ['a@b.co'], password: 'x' } }), { [CONN_INFO]: { remoteAddress: '10.1.1.3' } })
    const failure = explainFailure(await recordOf(response), null)!
    expect(failure).toMatchObject({ kind: 'validation', status: 422, errors: { email: ['The email field must be a string.'] } })
  })
})

describe('which layer answered, without a stack', () => {
  async function traced401and429() {
    const { token } = await registerUser(client)
    const confirm = await recordOf(
      await traced.app.fetch(request('POST', '/api/confirm', { json: { code: '123' }, headers: { authorization: `Bearer ${token}` } }), { [CONN_INFO]: { remoteAddress: '10.1.2.1' } }),
    )
    const gated = await recordOf(await traced.app.fetch(request('GET', '/api/gated'), { [CONN_INFO]: { remoteAddress: '10.1.2.2' } }))
    const busy = await recordOf(await traced.app.fetch(request('GET', '/api/busy'), { [CONN_INFO]: { remoteAddress: '10.1.2.3' } }))
    return { confirm, gated, busy }
  }

  it('the timeline says whether each middleware called next()', async () => {
    const { confirm, gated, busy } = await traced401and429()
    for (const record of [confirm, gated, busy]) expect(record.trace, record.path).toBeNull()
    expect(confirm.middleware).toEqual([expect.objectContaining({ name: 'auth', called_next: true })])
    expect(gated.middleware).toEqual([expect.objectContaining({ name: 'gate', called_next: false })])
    expect(busy.middleware).toEqual([expect.objectContaining({ name: 'passOn', called_next: true })])
  })

  it('a 401 the handler answered behind the auth middleware is the handler\'s, with no bearer-token advice', async () => {
    const { confirm } = await traced401and429()
    expect(confirm.status_code).toBe(401)
    const failure = explainFailure(confirm, await traced.app.explain('POST', '/api/confirm'))!
    expect(failure).toMatchObject({ kind: 'invalid_token', status: 401, middleware: null })
    expect(failure.explanation).toContain("The route's handler confirmCode answered 401")
    expect(failure.explanation).not.toMatch(/log in again/i)
  })

  it('a 429 from a middleware named for nothing is that middleware\'s; the same 429 from a handler is the handler\'s', async () => {
    const { gated, busy } = await traced401and429()
    expect(explainFailure(gated, await traced.app.explain('GET', '/api/gated'))).toMatchObject({ kind: 'throttle', status: 429, middleware: 'gate' })
    const fromHandler = explainFailure(busy, await traced.app.explain('GET', '/api/busy'))!
    expect(fromHandler).toMatchObject({ kind: 'throttle', status: 429, middleware: null })
    expect(fromHandler.explanation).toContain("The route's handler busy answered 429")
  })

  it('records written before called_next existed get the guess from the route and the names, as before', async () => {
    const { confirm, gated } = await traced401and429()
    const unmarked = (record: TraceRecord): TraceRecord => ({ ...record, middleware: record.middleware.map(({ called_next: _called, ...step }) => step) })
    // The guesses these records show to be wrong: an auth middleware is blamed for a 401, a handler for a 429.
    expect(answeringLayer(unmarked(confirm), await traced.app.explain('POST', '/api/confirm'))).toEqual({ layer: 'middleware', name: 'auth' })
    expect(answeringLayer(unmarked(gated), await traced.app.explain('GET', '/api/gated'))).toEqual({ layer: 'handler', name: 'gated' })
    // A failure no middleware is known for, after every declared middleware ran: the old record cannot tell, the new one can.
    const teapot = await recordOf(await traced.app.fetch(request('GET', '/api/teapot'), { [CONN_INFO]: { remoteAddress: '10.1.2.4' } }))
    const routing = await traced.app.explain('GET', '/api/teapot')
    expect(answeringLayer(teapot, routing)).toEqual({ layer: 'handler', name: 'teapot' })
    expect(answeringLayer(unmarked(teapot), routing)).toEqual({ layer: 'unknown', middleware: 'passOn', handler: 'teapot' })
    expect(explainFailure(unmarked(teapot), routing)!.explanation).toContain("The trace does not tell whether the route's last middleware, passOn, or its handler teapot answered")
  })
})
