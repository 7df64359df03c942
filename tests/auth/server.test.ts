/** The core auth flows again, through svc's real Node server on 127.0.0.1 and a free port. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defineRoutes } from 'svc'
import { startServer, type RunningServer } from '../helpers/server.ts'
import { createAuthTestApp, PASSWORD, type AuthTestApp } from './helpers.ts'

let t: AuthTestApp
let server: RunningServer

beforeAll(async () => {
  t = await createAuthTestApp({
    env: { AUTH_LOGIN_THROTTLE: '8,1', JWT_REFRESH_REUSE_GRACE: '10' },
    api: defineRoutes((r) => r.get('/admin', () => ({ ok: true })).middleware('auth:admin')),
  })
  server = await startServer(t.app)
})
afterAll(async () => {
  await server.close()
  await t.close()
})

async function send(method: string, path: string, options: { json?: unknown; token?: string; body?: string } = {}) {
  const headers: Record<string, string> = {}
  if (options.json !== undefined || options.body !== undefined) headers['content-type'] = 'application/json'
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers,
    body: options.body ?? (options.json === undefined ? undefined : JSON.stringify(options.json)),
  })
  const text = await response.text()
  return { status: response.status, headers: response.headers, body: text === '' ? null : JSON.parse(text) }
}

describe('auth over HTTP', () => {
  it('register, me, refresh (rotation and reuse), logout', async () => {
    const email = 'wire@example.com'
    const registered = await send('POST', '/api/auth/register', { json: { name: 'Wire', email, password: PASSWORD, password_confirmation: PASSWORD } })
    expect(registered.status).toBe(201)
    expect(registered.body.message).toBe('User registered successfully')
    const { token, refresh_token } = registered.body.data

    const me = await send('GET', '/api/auth/me', { token })
    expect(me.body).toEqual({ success: true, data: { id: registered.body.data.user.id, name: 'Wire', email, role: 'user' } })

    const [a, b] = await Promise.all([
      send('POST', '/api/auth/refresh', { json: { refresh_token } }),
      send('POST', '/api/auth/refresh', { json: { refresh_token } }),
    ])
    // Two tabs refreshing at once: both get a pair, within the reuse grace (JWT_REFRESH_REUSE_GRACE).
    expect([a.status, b.status]).toEqual([200, 200])
    // Past it, the first token again is a reuse: the family is gone, both tabs' new tokens with it.
    t.clock.advance(10_001)
    expect((await send('POST', '/api/auth/refresh', { json: { refresh_token } })).status).toBe(401)
    for (const tab of [a, b]) expect((await send('POST', '/api/auth/refresh', { json: { refresh_token: tab.body.data.refresh_token } })).status).toBe(401)

    const login = await send('POST', '/api/auth/login', { json: { email, password: PASSWORD } })
    expect(login.status).toBe(200)
    expect(login.headers.get('ratelimit-limit')).toBe('8')
    const logout = await send('POST', '/api/auth/logout', { token: login.body.data.token })
    expect(logout.body).toEqual({ success: true, message: 'Logged out successfully', data: null })
    const after = await send('GET', '/api/auth/me', { token: login.body.data.token })
    expect(after.status).toBe(401)
    expect(after.headers.get('www-authenticate')).toContain('Bearer')
  })

  it('401 with WWW-Authenticate, 403 for a role, 422 and 400 for bad input', async () => {
    const missing = await send('GET', '/api/auth/me')
    expect(missing.status).toBe(401)
    expect(missing.headers.get('www-authenticate')).toBe('Bearer realm="api"')
    const user = await send('POST', '/api/auth/register', {
      json: { name: 'R', email: 'role@example.com', password: PASSWORD, password_confirmation: PASSWORD },
    })
    expect((await send('GET', '/api/admin', { token: user.body.data.token })).status).toBe(403)
    const invalid = await send('POST', '/api/auth/register', { json: { name: 'x', email: 'bad', password: 'short' } })
    expect(invalid.status).toBe(422)
    expect(Object.keys(invalid.body.errors).sort()).toEqual(['email', 'password', 'password_confirmation'])
    expect((await send('POST', '/api/auth/login', { body: '{"email":' })).status).toBe(400)
  })

  it('lockout (423 + Retry-After), then the login throttle (429 + Retry-After)', async () => {
    const email = 'locked@example.com'
    await send('POST', '/api/auth/register', { json: { name: 'L', email, password: PASSWORD, password_confirmation: PASSWORD } })
    const statuses: number[] = []
    let locked
    for (let i = 0; i < 6; i++) {
      const response = await send('POST', '/api/auth/login', { json: { email, password: 'wrong wrong' } })
      statuses.push(response.status)
      if (response.status === 423) locked = response
    }
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 423])
    expect(locked!.headers.get('retry-after')).toBe('900')
    // 8 a minute from 127.0.0.1 in this file: earlier tests used some, the 9th is refused.
    let limited
    for (let i = 0; i < 10 && limited === undefined; i++) {
      const response = await send('POST', '/api/auth/login', { json: { email, password: PASSWORD } })
      if (response.status === 429) limited = response
    }
    expect(limited).toBeDefined()
    expect(limited!.headers.get('retry-after')).toMatch(/^\d+$/)
    expect(limited!.headers.get('ratelimit-remaining')).toBe('0')
    expect(limited!.body).toEqual({ success: false, error: 'Too Many Requests', code: 429 })
  })
})
