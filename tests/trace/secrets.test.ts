/**
 * Issue 11, item 5 and the redaction items of issue 10: no secret reaches
 * the trace store, whatever shape it was sent in (valid or malformed JSON,
 * single quotes, no quotes, a form, multipart, the query string, headers of
 * any name that says what they hold). The raw bytes of the trace database
 * and its WAL are searched for every secret sent.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { defineRoutes, HttpError, TRACE_HEADER, ValidationError } from 'svc'
import { REDACTED } from 'svc/trace'
import { request, storageBytes, tracedApp, type TracedApp } from './helpers.ts'

const api = defineRoutes((r) => {
  r.post('/login', async (c) => {
    await c.body()
    return { ok: true }
  })
  r.post('/guarded', function guarded() {
    throw new HttpError(401, 'Unauthenticated')
  })
  r.get('/search', (c) => ({ page: c.query.get('page') }))
  r.post('/register', async (c) => {
    const input = (await c.body()) as { password?: string }
    throw new ValidationError({ password: [`The password "${input.password}" is too short`, 'The password needs a digit'] })
  })
  r.get('/challenge', () => {
    throw new HttpError(401, 'Invalid token', { headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } })
  })
  r.post('/short', () => {
    throw new ValidationError({ password: ['The password must be at least 12 characters'], password_confirmation: ['The confirmation does not match'] })
  })
})

let traced: TracedApp | undefined
afterEach(async () => {
  await traced?.close()
  traced = undefined
})

/** A request carrying `secret` in one shape; the shapes cycle over the 50 secrets. */
const SHAPES: Array<(secret: string) => Request> = [
  (s) => request('POST', '/api/login', { json: { email: 'a@b.c', password: s } }),
  (s) => request('POST', '/api/login', { body: `{"email":"a@b.c","password":'${s}'}`, headers: { 'content-type': 'application/json' } }),
  (s) => request('POST', '/api/login', { body: `{'email':'a@b.c','password':'${s}'}`, headers: { 'content-type': 'application/json' } }),
  (s) => request('POST', '/api/login', { body: `{email: "a@b.c", password: "${s}"}`, headers: { 'content-type': 'application/json' } }),
  (s) => request('POST', '/api/login', { body: `{email: a@b.c, password: ${s}}`, headers: { 'content-type': 'application/json' } }),
  (s) => request('POST', '/api/login', { body: `{"password":${s}}`, headers: { 'content-type': 'application/json' } }),
  (s) => request('POST', '/api/login', { body: `{"email":"a@b.c","password":"${s}`, headers: { 'content-type': 'application/json' } }),
  (s) => request('POST', '/api/login', { body: `email=a%40b.c&password=${encodeURIComponent(s)}&remember=1`, headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
  (s) => {
    const boundary = '----svc-boundary-7'
    const body = `--${boundary}\r\nContent-Disposition: form-data; name="email"\r\n\r\na@b.c\r\n--${boundary}\r\nContent-Disposition: form-data; name="password"\r\n\r\n${s}\r\n--${boundary}--\r\n`
    return request('POST', '/api/login', { body, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } })
  },
  (s) => request('GET', `/api/search?page=2&password=${encodeURIComponent(s)}`),
  (s) => request('GET', `/api/search?token=${s}&page=3`),
  (s) => request('GET', '/api/search', { headers: { authorization: `Bearer ${s}` } }),
  (s) => request('GET', '/api/search', { headers: { 'x-access-token': s } }),
  (s) => request('GET', '/api/search', { headers: { 'api-key': s } }),
  (s) => request('GET', '/api/search', { headers: { 'x-refresh-token': s } }),
  (s) => request('GET', '/api/search', { headers: { 'x-csrf-token': s } }),
  (s) => request('GET', '/api/search', { headers: { cookie: `theme=dark; session=${s}` } }),
  (s) => request('POST', '/api/login', { json: { user: { profile: { refresh_token: s } } } }),
  // Never read by the handler (401 before the body): the tracer reads it, malformed as it is.
  (s) => request('POST', '/api/guarded', { body: `{password: '${s}'`, headers: { 'content-type': 'application/json' } }),
  (s) => request('POST', '/api/guarded', { body: `client_secret=${s}`, headers: { 'content-type': 'text/plain' } }),
  (s) => request('POST', '/api/register', { json: { password: s } }),
  (s) => request('POST', '/api/login', { body: `{"api_key" : '${s}', "x": 1`, headers: { 'content-type': 'application/json' } }),
]

describe('secrets in every shape', () => {
  it('none of 50 secrets reaches the trace database or a malformed-JSON answer', async () => {
    traced = await tracedApp({ api, vars: { APP_DEBUG: 'true' } })
    const secrets = Array.from({ length: 50 }, (_, i) => `s3cret${String(i).padStart(2, '0')}-${crypto.randomUUID().slice(0, 8)}`)
    const ids: string[] = []
    for (const [i, secret] of secrets.entries()) {
      const response = await traced.app.fetch(SHAPES[i % SHAPES.length]!(secret))
      const text = await response.text()
      // The framework's own answers (400 malformed, 415) never quote the body; the test app's 422 echoes on purpose.
      if (response.status === 400 || response.status === 415) expect(text.includes(secret), `the ${response.status} to shape ${i % SHAPES.length} quotes its secret: ${text}`).toBe(false)
      ids.push(response.headers.get(TRACE_HEADER)!)
    }
    await traced.tracer.flush()
    // Every request was traced: redaction hid the values, it did not drop the records.
    for (const id of ids) expect(await traced.store.get(id)).toBeDefined()
    const malformed = (await traced.store.get(ids[1]!))!
    expect(malformed.status_code).toBe(400)
    expect(malformed.exception!.message).toMatch(/^Malformed JSON body: /)
    expect(malformed.body.content).toBe(`{"email":"a@b.c","password":"${REDACTED}"}`)

    await traced.tracer.close()
    traced.store.close()
    const bytes = storageBytes(traced.dir)
    expect(bytes).toContain('a@b.c') // the search itself works
    const found = secrets.filter((secret) => bytes.includes(secret))
    expect(found, `found in the trace database: ${found.map((s) => `${s} (shape ${secrets.indexOf(s) % SHAPES.length})`).join(', ')}`).toEqual([])
  })

  it('redacts headers by what their name says (token, key, secret, auth, cookie, session, password)', async () => {
    traced = await tracedApp({ api })
    const headers = {
      'x-access-token': 'v1',
      'api-key': 'v2',
      'x-refresh-token': 'v3',
      'x-csrf-token': 'v4',
      'x-session-id': 'v5',
      'x-client-secret': 'v6',
      'x-admin-password': 'v7',
      'x-amz-security-token': 'v8',
      'proxy-authorization': 'Basic dXNlcjpwYXNz',
      'x-request-id': 'req-1',
      accept: 'application/json',
      'user-agent': 'vitest',
    }
    const response = await traced.app.fetch(request('GET', '/api/search', { headers }))
    await traced.tracer.flush()
    const record = (await traced.store.get(response.headers.get(TRACE_HEADER)!))!
    for (const name of Object.keys(headers).slice(0, 9)) expect(record.headers[name], name).toBe(REDACTED)
    expect(record.headers).toMatchObject({ 'x-request-id': 'req-1', accept: 'application/json', 'user-agent': 'vitest' })
    // A 401's challenge names no credential: api:why reads it.
    const refused = await traced.app.fetch(request('GET', '/api/challenge'))
    await traced.tracer.flush()
    const challenge = (await traced.store.get(refused.headers.get(TRACE_HEADER)!))!
    expect(challenge.response.headers['www-authenticate']).toBe('Bearer error="invalid_token"')
  })

  it('keeps the validation messages about a field named password, and hides a value one of them echoes', async () => {
    traced = await tracedApp({ api })
    const short = await traced.app.fetch(request('POST', '/api/short', { json: {} }))
    expect(short.status).toBe(422)
    const echoed = await traced.app.fetch(request('POST', '/api/register', { json: { password: 'tiny-but-secret' } }))
    await traced.tracer.flush()
    const record = (await traced.store.get(short.headers.get(TRACE_HEADER)!))!
    expect(record.response.body.content).toMatchObject({
      success: false,
      errors: { password: ['The password must be at least 12 characters'], password_confirmation: ['The confirmation does not match'] },
    })
    expect(record.exception!.errors).toEqual({ password: ['The password must be at least 12 characters'], password_confirmation: ['The confirmation does not match'] })
    const echo = (await traced.store.get(echoed.headers.get(TRACE_HEADER)!))!
    expect(echo.body.content).toEqual({ password: REDACTED })
    expect((echo.response.body.content as { errors: Record<string, string[]> }).errors.password).toEqual([`The password "${REDACTED}" is too short`, 'The password needs a digit'])
  })
})
