import { afterEach, describe, expect, it } from 'vitest'
import { defineRoutes, TRACE_HEADER } from 'svc'
import { REDACTED } from 'svc/trace'
import { Redactor } from '../../framework/trace/redact.ts'
import { request, storageBytes, tracedApp, type TracedApp } from './helpers.ts'

const PASSWORD = 'hunter2-correct-horse-battery'
const BEARER = 'eyJhbGciOiJIUzI1NiJ9.secret-bearer-payload.sig'
const COOKIE = 'session-cookie-value-4242'
const API_KEY = 'ak_live_9f8e7d6c5b4a'
const ISSUED_TOKEN = 'issued-refresh-token-0123456789'
const QUERY_TOKEN = 'query-string-token-abcdef'
const CUSTOM = 'custom-field-secret-777'

const api = defineRoutes((r) => {
  r.post('/login', async (c) => {
    const input = (await c.body()) as { email: string; password: string }
    // The parameter comes from a redacted field: it must not reach the store either.
    await c.db.execute('select ? as email, ? as password', [input.email, input.password])
    await c.db.execute('select ? as token', [ISSUED_TOKEN])
    return c.json(
      { token: BEARER, refresh_token: ISSUED_TOKEN, user: { email: input.email } },
      { headers: { 'set-cookie': `sid=${COOKIE}; HttpOnly` } },
    )
  })
  r.get('/echo', async (c) => {
    await c.db.execute('select ? as t', [c.query.get('token')])
    throw new Error(`failed for token ${c.query.get('token')}`)
  })
})

let traced: TracedApp | undefined
afterEach(async () => {
  await traced?.close()
  traced = undefined
})

describe('redaction', () => {
  it('no secret value reaches the trace database, in any form', async () => {
    traced = await tracedApp({ api, vars: { APP_DEBUG: 'true' }, traceVars: { TRACE_REDACT_FIELDS: 'pin_code', TRACE_REDACT_HEADERS: 'x-custom-secret' } })
    const login = await traced.app.fetch(
      request('POST', '/api/login', {
        json: { email: 'ada@example.com', password: PASSWORD, password_confirmation: PASSWORD, nested: { pin_code: CUSTOM } },
        headers: { authorization: `Bearer ${BEARER}`, cookie: `sid=${COOKIE}`, 'x-api-key': API_KEY, 'x-custom-secret': CUSTOM },
      }),
    )
    expect(login.status).toBe(200)
    const echo = await traced.app.fetch(request('GET', `/api/echo?token=${QUERY_TOKEN}&page=2`))
    expect(echo.status).toBe(500)
    await traced.tracer.flush()

    const record = (await traced.store.get(login.headers.get(TRACE_HEADER)!))!
    expect(record.headers.authorization).toBe(REDACTED)
    expect(record.headers.cookie).toBe(REDACTED)
    expect(record.headers['x-api-key']).toBe(REDACTED)
    expect(record.headers['x-custom-secret']).toBe(REDACTED)
    expect(record.body.content).toEqual({
      email: 'ada@example.com',
      password: REDACTED,
      password_confirmation: REDACTED,
      nested: { pin_code: REDACTED },
    })
    expect(record.queries[0]!.args).toEqual(['ada@example.com', REDACTED])
    expect(record.queries[1]!.args).toEqual([REDACTED])
    expect(record.response.headers['set-cookie']).toBe(REDACTED)
    expect(record.response.body.content).toMatchObject({ data: { token: REDACTED, refresh_token: REDACTED, user: { email: 'ada@example.com' } } })

    const echoRecord = (await traced.store.get(echo.headers.get(TRACE_HEADER)!))!
    expect(echoRecord.query).toBe(`token=${REDACTED}&page=2`)
    expect(echoRecord.queries[0]!.args).toEqual([REDACTED])
    expect(echoRecord.exception!.message).toBe(`failed for token ${REDACTED}`)

    await traced.tracer.close()
    traced.store.close()
    const bytes = storageBytes(traced.dir)
    expect(bytes).toContain('ada@example.com') // the search itself works
    for (const secret of [PASSWORD, BEARER, COOKIE, API_KEY, ISSUED_TOKEN, QUERY_TOKEN, CUSTOM]) {
      expect(bytes.includes(secret), `${secret} found in the trace database`).toBe(false)
    }
  })

  it('redacts named fields in a body cut at the limit', async () => {
    traced = await tracedApp({ api, traceVars: { TRACE_BODY_LIMIT: '60' } })
    const response = await traced.app.fetch(
      request('POST', '/api/login', { json: { email: 'a@b.c', password: PASSWORD, padding: 'x'.repeat(200) } }),
    )
    await traced.tracer.flush()
    const record = (await traced.store.get(response.headers.get(TRACE_HEADER)!))!
    expect(record.body.truncated).toBe(true)
    expect(record.body.content).toContain(`"password":"${REDACTED}"`)
    expect(JSON.stringify(record)).not.toContain(PASSWORD)
  })
})

describe('redaction keeps every field it does not redact', () => {
  it('a body field named __proto__ stays a field of the copy (an assignment would have set its prototype)', () => {
    const redactor = new Redactor(new Set(['authorization']), new Set(['password']))
    const body = JSON.parse('{"__proto__":{"password":"hunter2","x":1},"title":"a"}')
    expect(JSON.stringify(redactor.json(body))).toBe(`{"__proto__":{"password":"${REDACTED}","x":1},"title":"a"}`)
    const refused = JSON.parse('{"success":false,"errors":{"__proto__":["The proto field is not allowed."]}}')
    expect(JSON.stringify(redactor.responseJson(refused))).toBe('{"success":false,"errors":{"__proto__":["The proto field is not allowed."]}}')
  })
})

describe('a header that names a scheme without credentials', () => {
  it('remembers no secret: the word "Bearer" stays in the rest of the trace', () => {
    // A request with `Authorization: Bearer` (empty token) redacted "Bearer" everywhere: the stack read missing[REDACTED].
    const redactor = new Redactor(new Set(['authorization']), new Set(['password']))
    expect(redactor.headers({ authorization: 'Bearer' })).toEqual({ authorization: REDACTED })
    expect(redactor.headers({ authorization: 'Bearer ' })).toEqual({ authorization: REDACTED })
    expect(redactor.secrets.size).toBe(0)
    expect(redactor.text('at missingBearer (file:///svc/dist/framework/auth/middleware.js:28:12)')).toBe('at missingBearer (file:///svc/dist/framework/auth/middleware.js:28:12)')
    // A token is still remembered (to be cut out wherever it shows again).
    redactor.headers({ authorization: 'Bearer abc.def.ghi' })
    expect(redactor.secrets.has('abc.def.ghi')).toBe(true)
    expect(redactor.secrets.has('Bearer')).toBe(false)
  })

  it('remembers the token after a tab as after a space (to be cut out wherever it shows again)', () => {
    const redactor = new Redactor(new Set(['authorization']), new Set(['password']))
    expect(redactor.headers({ authorization: 'Bearer\tabc.def.ghi' })).toEqual({ authorization: REDACTED })
    expect(redactor.secrets.has('abc.def.ghi')).toBe(true)
  })
})
