/**
 * The analysis behind `api:why` and `why`, in-process on a traced app with
 * authentication: the routing half comes from `app.explain` (the real table),
 * the failure half from the trace. A wrong password is the login handler's
 * "invalid credentials", not a missing token blamed on the throttle before it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { authMigrations, CONN_INFO, authPlugin, memoryMailer, migrate, TRACE_HEADER } from 'svc'
import { explainFailure } from '../../cli/trace/why.ts'
import { PASSWORD, registerUser, SECRET } from '../auth/helpers.ts'
import { createTestClient, type TestClient } from 'svc/testing'
import { request, tracedApp, type TracedApp } from '../trace/helpers.ts'

let traced: TracedApp
let client: TestClient

beforeAll(async () => {
  traced = await tracedApp({
    vars: { JWT_SECRET: SECRET, PASSWORD_HASH_MEMORY_KIB: '64', PASSWORD_HASH_ITERATIONS: '1', PASSWORD_HASH_PARALLELISM: '1' },
    plugins: [authPlugin({ mailer: memoryMailer() })],
  })
  await migrate(traced.app.database!, authMigrations)
  client = createTestClient(traced.app)
})
afterAll(() => traced.close())

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

  it('an invalid body: validation, with the field errors', async () => {
    const response = await traced.app.fetch(request('POST', '/api/auth/login', { json: { email: ['a@b.co'], password: 'x' } }), { [CONN_INFO]: { remoteAddress: '10.1.1.3' } })
    const failure = explainFailure(await recordOf(response), null)!
    expect(failure).toMatchObject({ kind: 'validation', status: 422, errors: { email: ['The email field must be a string.'] } })
  })
})
