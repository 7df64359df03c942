/**
 * The HTTP conformance suite, written once against a base URL: routing,
 * auth flows, health, the trace header, the error envelope, and the throttle
 * keyed by the client's address (a forged X-Forwarded-For does not reset it).
 * runtimes.test.ts runs it against the example served by Node, Deno, Bun and
 * workerd; every response's trace id is collected, to be read back from the
 * runtime's trace store afterwards.
 */
import { expect } from 'vitest'

export interface ConformanceRun {
  /** The X-Service-Trace-Id of every response (each request is traced). */
  traceIds: string[]
}

const TRACE_ID = /^svc_[0-9a-f]{32}$/

export async function conformance(baseUrl: string): Promise<ConformanceRun> {
  const traceIds: string[] = []
  async function call(method: string, path: string, options: { body?: unknown; raw?: string; token?: string; headers?: Record<string, string> } = {}) {
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers }
    if (options.body !== undefined || options.raw !== undefined) headers['content-type'] = 'application/json'
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers,
      body: options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
    })
    const traceId = response.headers.get('x-service-trace-id')
    expect(traceId, `${method} ${path}: trace header`).toMatch(TRACE_ID)
    traceIds.push(traceId!)
    const text = await response.text()
    const json = text === '' ? undefined : (JSON.parse(text) as { success: boolean; data?: any; error?: string; code?: number; errors?: unknown })
    return { status: response.status, headers: response.headers, json, bytes: new TextEncoder().encode(text).byteLength }
  }

  // Health
  const live = await call('GET', '/health/live')
  expect(live.status).toBe(200)
  // HEAD sends the GET's Content-Length or none (RFC 9110 §9.3.2), never a 0 for the body it leaves out. svc knows
  // the length of the JSON it wrote; a response a middleware rebuilt (v2's Server-Timing) has a length it does not.
  const liveHead = await call('HEAD', '/health/live')
  expect(liveHead.status).toBe(200)
  expect(liveHead.bytes).toBe(0)
  expect(liveHead.headers.get('content-length')).toBe(String(live.bytes))
  const page = await call('GET', '/api/v2/posts')
  expect(page.status).toBe(200)
  const pageHead = await call('HEAD', '/api/v2/posts')
  expect(pageHead.status).toBe(200)
  expect([null, String(page.bytes)]).toContain(pageHead.headers.get('content-length'))
  const ready = await call('GET', '/health/ready')
  expect(ready.status).toBe(200)
  expect(ready.json!.data.status).toBe('ok')
  expect(Object.keys(ready.json!.data.checks)).toEqual(expect.arrayContaining(['database', 'traces']))

  // Routing and the error envelope
  const welcome = await call('GET', '/')
  expect(welcome.status).toBe(200)
  const posts = await call('GET', '/api/v1/posts')
  expect(posts.status).toBe(200)
  expect(posts.json!.success).toBe(true)
  const missing = await call('GET', '/api/v1/nothing-here')
  expect(missing.status).toBe(404)
  expect(missing.json).toMatchObject({ success: false, code: 404 })
  const noPost = await call('GET', '/api/v1/posts/999999')
  expect(noPost.status).toBe(404)
  const unauthenticated = await call('POST', '/api/v1/posts', { body: { title: 'x' } })
  expect(unauthenticated.status).toBe(401)
  expect(unauthenticated.json).toMatchObject({ success: false, code: 401 })
  const malformed = await call('POST', '/api/auth/login', { raw: '{"email": ' })
  expect(malformed.status).toBe(400)
  expect(malformed.json!.success).toBe(false)
  // Where the JSON breaks, the same words on every engine (JavaScriptCore's own message names no position).
  expect(malformed.json!.error).toBe('Malformed JSON body: the JSON ends before it is complete')
  const broken = await call('POST', '/api/auth/refresh', { raw: '{"refresh_token": "abc",\n "extra": x}' })
  expect(broken.status).toBe(400)
  expect(broken.json!.error).toBe('Malformed JSON body: invalid JSON at line 2, column 11')
  const invalid = await call('POST', '/api/auth/register', { body: { email: 'not-an-email' } })
  expect(invalid.status).toBe(422)
  expect(invalid.json!.success).toBe(false)

  // Auth flows: register, me, login, refresh rotation (a reused refresh token is refused), logout
  const email = `conformance-${Date.now()}@example.com`
  const password = 'correct horse battery'
  const registered = await call('POST', '/api/auth/register', { body: { name: 'Conformance', email, password, password_confirmation: password } })
  expect(registered.status).toBe(201)
  const first = registered.json!.data as { token: string; refresh_token: string }
  const duplicate = await call('POST', '/api/auth/register', { body: { name: 'Again', email, password, password_confirmation: password } })
  expect(duplicate.status).toBe(422)
  const me = await call('GET', '/api/auth/me', { token: first.token })
  expect(me.status).toBe(200)
  expect(me.json!.data).toMatchObject({ email })
  expect((await call('GET', '/api/auth/me')).status).toBe(401)
  expect((await call('GET', '/api/auth/me', { token: 'not.a.jwt' })).status).toBe(401)
  expect((await call('POST', '/api/auth/login', { body: { email, password: 'wrong password!' } })).status).toBe(401)
  const login = await call('POST', '/api/auth/login', { body: { email, password } })
  expect(login.status).toBe(200)
  const refreshed = await call('POST', '/api/auth/refresh', { body: { refresh_token: first.refresh_token } })
  expect(refreshed.status).toBe(200)
  const rotated = refreshed.json!.data as { token: string; refresh_token: string }
  expect(rotated.refresh_token).not.toBe(first.refresh_token)
  const created = await call('POST', '/api/v1/posts', { token: rotated.token, body: { title: 'From the conformance suite', body: 'Hello' } })
  expect([201, 403, 422]).toContain(created.status)
  expect((await call('POST', '/api/auth/logout', { token: rotated.token })).status).toBe(200)
  // The first refresh token was rotated away: presenting it again is refused.
  expect((await call('POST', '/api/auth/refresh', { body: { refresh_token: first.refresh_token } })).status).toBe(401)

  // The throttle is keyed by the peer address the adapter passes: forging X-Forwarded-For does not reset it.
  const statuses: number[] = []
  for (let i = 0; i < 7; i++) {
    const forgot = await call('POST', '/api/auth/forgot-password', { body: { email: `nobody-${i}@example.com` }, headers: { 'x-forwarded-for': `203.0.113.${i}` } })
    statuses.push(forgot.status)
  }
  expect(statuses.slice(0, 6)).toEqual([200, 200, 200, 200, 200, 200])
  expect(statuses[6]).toBe(429)

  return { traceIds }
}
