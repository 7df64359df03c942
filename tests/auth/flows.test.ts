/**
 * The auth routes through `app.fetch`: register, login, me, refresh, logout,
 * verify-email, forgot/reset password, every row of the spec's state table,
 * refresh rotation, reuse and concurrency, roles, and bad input per route.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { decodeJwt } from 'jose'
import { defineRoutes, requireRole } from 'svc'
import { createAuthTestApp, PASSWORD, registerUser, type AuthTestApp } from './helpers.ts'
import { DEFAULT_REDACTED_FIELDS, DEFAULT_REDACTED_HEADERS } from '../../framework/trace/config.ts'
import { Redactor } from '../../framework/trace/redact.ts'

let t: AuthTestApp

beforeAll(async () => {
  t = await createAuthTestApp({
    // A reuse grace as an app whose clients refresh from several tabs sets it (the default is none).
    env: { JWT_TTL: '900', JWT_REFRESH_TTL: '86400', JWT_REFRESH_REUSE_GRACE: '10' },
    api: defineRoutes((r) => {
      r.get('/admin/stats', () => ({ ok: 'admin' })).middleware('auth:admin')
      r.get('/staff/queue', () => ({ ok: 'staff' })).middleware('auth:admin,moderator')
      r.get('/reports', (c) => ({ by: requireRole(c, 'admin').email })).middleware('auth')
      r.get('/reports-unprotected', (c) => requireRole(c, 'admin'))
      r.get('/verified-only', () => ({ ok: true })).middleware('auth', 'verified')
    }),
  })
})
afterAll(() => t.close())

async function setRole(id: number, role: string) {
  await t.db.execute('update users set role = ? where id = ?', [role, id])
}

describe('POST /api/auth/register', () => {
  it('answers 201 with the message, a token pair and the user', async () => {
    const { response, email } = await registerUser(t.client, { name: 'Ada Lovelace' })
    expect(response.status).toBe(201)
    expect(response.body).toMatchObject({ success: true, message: 'User registered successfully' })
    const data = response.body.data
    expect(Object.keys(data).sort()).toEqual(['expires_in', 'refresh_token', 'token', 'token_type', 'user'])
    expect(data.token_type).toBe('Bearer')
    expect(data.expires_in).toBe(900)
    expect(data.user).toEqual({ id: expect.any(Number), name: 'Ada Lovelace', email })
    const row = (await t.db.execute('select password, role, status, token_version from users where id = ?', [data.user.id])).rows[0]!
    expect(String(row.password)).toMatch(/^\$argon2id\$v=19\$m=64,t=1,p=1\$/)
    expect(row).toMatchObject({ role: 'user', status: 1, token_version: 0 })
  })

  it('refuses an email already taken, compared case-insensitively (422 on email)', async () => {
    const { email } = await registerUser(t.client)
    const again = await t.client.post('/api/auth/register', {
      json: { name: 'Copy', email: email.toUpperCase(), password: PASSWORD, password_confirmation: PASSWORD },
    })
    expect(again.status).toBe(422)
    expect(again.body).toMatchObject({ success: false, code: 422, errors: { email: ['The email has already been taken.'] } })
  })

  const valid = { name: 'Bo', email: 'bo@example.com', password: PASSWORD, password_confirmation: PASSWORD }
  it.each([
    ['missing name', { ...valid, name: undefined }, 'name', 'The name field is required.'],
    ['blank name', { ...valid, name: '   ' }, 'name', 'The name field is required.'],
    ['name not a string', { ...valid, name: 42 }, 'name', 'The name field must be a string.'],
    ['name as an array', { ...valid, name: ['Bo'] }, 'name', 'The name field must be a string.'],
    ['name over 255', { ...valid, name: 'n'.repeat(256) }, 'name', 'The name field must not be greater than 255 characters.'],
    ['missing email', { ...valid, email: undefined }, 'email', 'The email field is required.'],
    ['email not an address', { ...valid, email: 'not-an-email' }, 'email', 'The email field must be a valid email address.'],
    ['email as an object', { ...valid, email: { a: 1 } }, 'email', 'The email field must be a string.'],
    ['email over 254', { ...valid, email: `${'e'.repeat(250)}@x.io` }, 'email', 'The email field must not be greater than 254 characters.'],
    ['short password', { ...valid, password: 'short12', password_confirmation: 'short12' }, 'password', 'The password field must be at least 8 characters.'],
    ['huge password', { ...valid, password: 'p'.repeat(257), password_confirmation: 'p'.repeat(257) }, 'password', 'The password field must not be greater than 256 characters.'],
    ['password a number', { ...valid, password: 12345678 }, 'password', 'The password field must be a string.'],
    ['confirmation differs', { ...valid, password_confirmation: 'something else' }, 'password_confirmation', 'The password confirmation does not match.'],
    ['confirmation missing', { ...valid, password_confirmation: undefined }, 'password_confirmation', 'The password confirmation field is required.'],
  ])('422 for %s', async (_label, body, field, message) => {
    const response = await t.client.post('/api/auth/register', { json: body })
    expect(response.status).toBe(422)
    expect(response.body.errors[field]).toEqual([message])
  })

  it('lists every failing field at once', async () => {
    const response = await t.client.post('/api/auth/register', { json: {} })
    expect(response.status).toBe(422)
    expect(Object.keys(response.body.errors).sort()).toEqual(['email', 'name', 'password', 'password_confirmation'])
  })

  it('accepts passwords of 64 and 256 characters with no composition rules', async () => {
    for (const password of ['a'.repeat(64), 'é'.repeat(256)]) {
      const response = await t.client.post('/api/auth/register', {
        json: { name: 'Long', email: `long${password.length}@example.com`, password, password_confirmation: password },
      })
      expect(response.status).toBe(201)
    }
  })

  it('answers 422 for a body that is not an object, 400 for malformed JSON, 415 for another type', async () => {
    for (const json of [[1, 2], 'text', null, 7]) {
      const response = await t.client.post('/api/auth/register', { json })
      expect(response.status, JSON.stringify(json)).toBe(422)
      expect(response.body.errors).toEqual({ body: ['The request body must be a JSON object.'] })
    }
    const malformed = await t.client.post('/api/auth/register', { body: '{"name": ', headers: { 'content-type': 'application/json' } })
    expect(malformed.status).toBe(400)
    expect(malformed.body.success).toBe(false)
    const form = await t.client.post('/api/auth/register', { body: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
    expect(form.status).toBe(415)
  })

  it('sends a verification mail', async () => {
    const { email } = await registerUser(t.client)
    const mail = await t.mailer.waitFor((message) => message.to === email)
    expect(mail.subject).toBe('Verify your email address')
    expect(mail.text).toMatch(/verify-email\?token=[A-Za-z0-9_-]{43}/)
  })
})

describe('POST /api/auth/login', () => {
  it('answers 200 with the same shape as register (email compared case-insensitively)', async () => {
    const { email, id } = await registerUser(t.client)
    const response = await t.client.post('/api/auth/login', { json: { email: email.toUpperCase(), password: PASSWORD } })
    expect(response.status).toBe(200)
    expect(response.body).toMatchObject({ success: true, message: 'Login successful' })
    expect(response.body.data).toMatchObject({ token_type: 'Bearer', expires_in: 900, user: { id, email } })
    expect(Object.keys(response.body.data).sort()).toEqual(['expires_in', 'refresh_token', 'token', 'token_type', 'user'])
  })

  it('gives the same 401 for a wrong password and an unknown email', async () => {
    const { email } = await registerUser(t.client)
    const wrong = await t.client.post('/api/auth/login', { json: { email, password: 'wrong password!' } })
    const unknown = await t.client.post('/api/auth/login', { json: { email: 'nobody-here@example.com', password: 'wrong password!' } })
    expect(wrong.status).toBe(401)
    expect(unknown.status).toBe(401)
    expect(wrong.body).toEqual({ success: false, error: 'Invalid credentials', code: 401 })
    expect(unknown.body).toEqual(wrong.body)
    expect(wrong.headers.get('www-authenticate')).toBe(unknown.headers.get('www-authenticate'))
  })

  it('verifies unknown emails against a dummy hash (same work as a real account)', async () => {
    const { email } = await registerUser(t.client)
    const hasher = (await import('svc')).createPasswordHasher({ memoryKib: 64, iterations: 1, parallelism: 1 })
    let calls = 0
    const counting = { ...hasher, verify: async (stored: string, password: string) => (calls++, hasher.verify(stored, password)) }
    const app = await createAuthTestApp({ plugin: { hasher: { ...counting, verifyDummy: async (p: string) => (await counting.verify(await hasher.hash('x'), p), false) } } })
    try {
      await registerUser(app.client, { email })
      await app.client.post('/api/auth/login', { json: { email: 'ghost@example.com', password: 'whatever1' } })
      await app.client.post('/api/auth/login', { json: { email, password: 'whatever1' } })
      expect(calls).toBe(2)
    } finally {
      await app.close()
    }
  })

  it.each([
    ['missing email', { password: PASSWORD }, 'email'],
    ['missing password', { email: 'a@example.com' }, 'password'],
    ['email as a number', { email: 5, password: PASSWORD }, 'email'],
    ['password as an array', { email: 'a@example.com', password: [PASSWORD] }, 'password'],
    ['huge password', { email: 'a@example.com', password: 'x'.repeat(10_000) }, 'password'],
  ])('422 for %s', async (_label, json, field) => {
    const response = await t.client.post('/api/auth/login', { json })
    expect(response.status).toBe(422)
    expect(Object.keys(response.body.errors)).toEqual([field])
  })

  it('400 for malformed JSON', async () => {
    const response = await t.client.post('/api/auth/login', { body: '{', headers: { 'content-type': 'application/json' } })
    expect(response.status).toBe(400)
  })

  it('re-hashes a password stored with other parameters', async () => {
    const { email, id } = await registerUser(t.client)
    const { createPasswordHasher } = await import('svc')
    const old = await createPasswordHasher({ memoryKib: 32, iterations: 2, parallelism: 1 }).hash(PASSWORD)
    await t.db.execute('update users set password = ? where id = ?', [old, id])
    const response = await t.client.post('/api/auth/login', { json: { email, password: PASSWORD } })
    expect(response.status).toBe(200)
    const stored = String((await t.db.execute('select password from users where id = ?', [id])).rows[0]!.password)
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=64,t=1,p=1\$/)
    expect((await t.client.post('/api/auth/login', { json: { email, password: PASSWORD } })).status).toBe(200)
  })

  it('refuses an inactive account with 403 once the password is right', async () => {
    const { email, id } = await registerUser(t.client)
    await t.db.execute('update users set status = 0 where id = ?', [id])
    expect((await t.client.post('/api/auth/login', { json: { email, password: 'wrong password' } })).status).toBe(401)
    const response = await t.client.post('/api/auth/login', { json: { email, password: PASSWORD } })
    expect(response.status).toBe(403)
    expect(response.body.error).toBe('Account is inactive')
  })
})

describe('GET /api/auth/me and the auth middleware', () => {
  it('answers the current user with its role', async () => {
    const { token, id, email } = await registerUser(t.client, { name: 'Me Myself' })
    const response = await t.client.get('/api/auth/me', { token })
    expect(response.status).toBe(200)
    expect(response.body).toEqual({ success: true, data: { id, name: 'Me Myself', email, role: 'user' } })
  })

  it.each([
    ['no Authorization header', {}, 'Unauthenticated', 'Bearer realm="api"'],
    // RFC 6750 3.1: another scheme carries no token: a challenge without an error code, and the scheme to use.
    ['another scheme', { authorization: 'Basic dXNlcjpwYXNz' }, 'Unauthenticated: send the access token as Authorization: Bearer <token>', 'Bearer realm="api"'],
    ['a bare token, no scheme', { authorization: 'eyJhbGciOiJIUzI1NiJ9.e30.x' }, 'Unauthenticated: send the access token as Authorization: Bearer <token>', 'Bearer realm="api"'],
    ['another scheme that starts like Bearer', { authorization: 'Bearer:eyJhbGciOiJIUzI1NiJ9.e30.x' }, 'Unauthenticated: send the access token as Authorization: Bearer <token>', 'Bearer realm="api"'],
    // The Bearer scheme with credentials that are no token68: the message says what to fix, the challenge is invalid_token.
    ['an empty bearer', { authorization: 'Bearer ' }, 'Invalid token (none after Bearer): send the access token as Authorization: Bearer <token>', null],
    ['the scheme alone', { authorization: 'bearer' }, 'Invalid token (none after Bearer): send the access token as Authorization: Bearer <token>', null],
    ['a token behind a tab', { authorization: 'Bearer\teyJhbGciOiJIUzI1NiJ9.e30.x' }, 'Invalid token (separate it from Bearer with a space, not a tab or another whitespace): send the access token as Authorization: Bearer <token>', null],
    ['a token behind a space and a tab', { authorization: 'Bearer \teyJhbGciOiJIUzI1NiJ9.e30.x' }, 'Invalid token (separate it from Bearer with a space, not a tab or another whitespace): send the access token as Authorization: Bearer <token>', null],
    ['two words after Bearer', { authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.x extra' }, 'Invalid token (more than one word after Bearer, or characters no token has): send the access token as Authorization: Bearer <token>', null],
    ['garbage', { authorization: 'Bearer not.a.jwt' }, 'Invalid token', null],
  ])('401 with WWW-Authenticate for %s', async (_label, headers, message, challenge) => {
    const response = await t.client.get('/api/auth/me', { headers })
    expect(response.status).toBe(401)
    expect(response.body).toEqual({ success: false, error: message, code: 401 })
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer realm="api"/)
    expect(response.headers.get('www-authenticate')).toBe(challenge ?? `Bearer realm="api", error="invalid_token", error_description="${message}"`)
    // The trace keeps the message as it is: `token: <word>` would be read as a secret field and redacted.
    expect(new Redactor(new Set(DEFAULT_REDACTED_HEADERS), new Set(DEFAULT_REDACTED_FIELDS)).text(message)).toBe(message)
  })

  it('accepts one or more spaces between Bearer and the token (RFC 7235: 1*SP), and answers a valid token behind a tab with the fix, not a bare Invalid token', async () => {
    const { token } = await registerUser(t.client)
    expect((await t.client.get('/api/auth/me', { headers: { authorization: `Bearer   ${token}` } })).status).toBe(200)
    const tabbed = await t.client.get('/api/auth/me', { headers: { authorization: `Bearer\t${token}` } })
    expect(tabbed.status).toBe(401)
    expect(tabbed.body.error).toMatch(/^Invalid token \(separate it from Bearer with a space, not a tab/)
  })

  it('accepts the scheme in any case', async () => {
    const { token } = await registerUser(t.client)
    const response = await t.client.get('/api/auth/me', { headers: { authorization: `bearer ${token}` } })
    expect(response.status).toBe(200)
  })
})

describe('state table', () => {
  it('refresh token valid --POST /refresh--> old one revoked, a new pair returned', async () => {
    const { refreshToken, id } = await registerUser(t.client)
    const response = await t.client.post('/api/auth/refresh', { json: { refresh_token: refreshToken } })
    expect(response.status).toBe(200)
    expect(response.body.success).toBe(true)
    expect(Object.keys(response.body.data).sort()).toEqual(['expires_in', 'refresh_token', 'token', 'token_type'])
    expect(response.body.data).toMatchObject({ token_type: 'Bearer', expires_in: 900 })
    expect(response.body.data.refresh_token).not.toBe(refreshToken)
    expect((await t.client.get('/api/auth/me', { token: response.body.data.token })).body.data.id).toBe(id)
    const rows = (await t.db.execute('select revoked_reason, replaced_by, token_hash from refresh_tokens where user_id = ? order by created_at, rowid', [id])).rows
    expect(rows.map((row) => row.revoked_reason)).toEqual(['rotated', null])
    expect(rows[0]!.replaced_by).toBe(decodeJwt(response.body.data.refresh_token).jti)
    expect(rows.every((row) => /^[0-9a-f]{64}$/.test(String(row.token_hash)))).toBe(true)
    const stored = JSON.stringify(rows)
    expect(stored).not.toContain(refreshToken)
  })

  it('all tokens valid --POST /logout--> all invalid, token_version incremented', async () => {
    const { token, refreshToken, id, email } = await registerUser(t.client)
    const second = await t.client.post('/api/auth/login', { json: { email, password: PASSWORD } })
    const logout = await t.client.post('/api/auth/logout', { token })
    expect(logout.status).toBe(200)
    expect(logout.body).toEqual({ success: true, message: 'Logged out successfully', data: null })
    expect((await t.db.execute('select token_version from users where id = ?', [id])).rows[0]!.token_version).toBe(1)
    for (const access of [token, second.body.data.token]) {
      const me = await t.client.get('/api/auth/me', { token: access })
      expect(me.status).toBe(401)
      expect(me.body.error).toBe('Token has been revoked')
    }
    for (const refresh of [refreshToken, second.body.data.refresh_token]) {
      expect((await t.client.post('/api/auth/refresh', { json: { refresh_token: refresh } })).status).toBe(401)
    }
    expect((await t.client.post('/api/auth/logout', { token })).status).toBe(401)
    expect((await t.client.post('/api/auth/login', { json: { email, password: PASSWORD } })).status).toBe(200)
  })

  it('token_version in the token differs from the stored one => 401', async () => {
    const { token, id } = await registerUser(t.client)
    await t.db.execute('update users set token_version = token_version + 1 where id = ?', [id])
    const response = await t.client.get('/api/auth/me', { token })
    expect(response.status).toBe(401)
    expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"')
  })

  it('account not active (status != 1) => 403 on any protected request', async () => {
    const { token, id, refreshToken } = await registerUser(t.client)
    for (const status of [0, 2]) {
      await t.db.execute('update users set status = ? where id = ?', [status, id])
      const response = await t.client.get('/api/auth/me', { token })
      expect(response.status).toBe(403)
      expect(response.body).toEqual({ success: false, error: 'Account is inactive', code: 403 })
    }
    expect((await t.client.post('/api/auth/refresh', { json: { refresh_token: refreshToken } })).status).toBe(403)
    await t.db.execute('update users set status = 1 where id = ?', [id])
    expect((await t.client.get('/api/auth/me', { token })).status).toBe(200)
  })

  it('a deleted user => 401', async () => {
    const { token, id } = await registerUser(t.client)
    await t.db.execute('delete from users where id = ?', [id])
    expect((await t.client.get('/api/auth/me', { token })).status).toBe(401)
  })
})

describe('POST /api/auth/refresh', () => {
  it('reuse of a rotated token revokes the whole family, stops every access token of the user, records a security event', async () => {
    const { refreshToken, id, email } = await registerUser(t.client)
    const other = await t.client.post('/api/auth/login', { json: { email, password: PASSWORD } })
    const first = await t.client.post('/api/auth/refresh', { json: { refresh_token: refreshToken } })
    const rotated = first.body.data.refresh_token
    const second = await t.client.post('/api/auth/refresh', { json: { refresh_token: rotated } })
    expect(second.status).toBe(200)

    // Before the reuse, every access token works.
    for (const token of [second.body.data.token, other.body.data.token]) expect((await t.client.get('/api/auth/me', { token })).status).toBe(200)

    // Past the reuse grace (JWT_REFRESH_REUSE_GRACE, 10 s in this file): a reuse, no longer a concurrent refresh.
    t.clock.advance(10_001)
    const reuse = await t.client.post('/api/auth/refresh', { json: { refresh_token: refreshToken } })
    expect(reuse.status).toBe(401)
    expect(reuse.body.error).toMatch(/reuse detected/)
    // The newest token of that family is dead too.
    const newest = await t.client.post('/api/auth/refresh', { json: { refresh_token: second.body.data.refresh_token } })
    expect(newest.status).toBe(401)
    // The user's token version moved on: every access token handed out stops at once (the family's,
    // whoever holds them, and, since an access token does not carry its family, the other login's too).
    for (const token of [second.body.data.token, other.body.data.token]) {
      const me = await t.client.get('/api/auth/me', { token })
      expect(me.status).toBe(401)
      expect(me.body.error).toBe('Token has been revoked')
    }
    expect((await t.client.post('/api/auth/refresh', { json: { refresh_token: other.body.data.refresh_token } })).status).toBe(401)
    expect((await t.client.post('/api/auth/login', { json: { email, password: PASSWORD } })).status).toBe(200)

    const events = (await t.db.execute("select * from security_events where type = 'refresh_token_reuse' and user_id = ?", [id])).rows
    expect(events).toHaveLength(1)
    expect(events[0]!.ip).toBe('127.0.0.1')
    expect(JSON.parse(String(events[0]!.details))).toMatchObject({ revoked: 1, family_id: expect.any(String) })
  })

  it('concurrent refreshes of one token (SPA tabs) all succeed within the reuse grace, each with a token of its own, and nothing is revoked', async () => {
    for (let round = 0; round < 3; round++) {
      const { refreshToken, id, token } = await registerUser(t.client)
      // Four refreshes in flight at once through app.fetch: one rotates, the others find it rotated a moment ago.
      const results = await Promise.all(
        Array.from({ length: 4 }, () => t.client.post('/api/auth/refresh', { json: { refresh_token: refreshToken } })),
      )
      expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200])
      const issued = results.map((r) => r.body.data.refresh_token as string)
      expect(new Set(issued).size).toBe(4)
      // The user is still logged in: the first access token works, and every tab's new refresh token rotates.
      expect((await t.client.get('/api/auth/me', { token })).status).toBe(200)
      for (const next of issued) expect((await t.client.post('/api/auth/refresh', { json: { refresh_token: next } })).status).toBe(200)
      expect(await t.db.first("select count(*) as events from security_events where type = 'refresh_token_reuse' and user_id = ?", [id])).toEqual({ events: 0 })
      // Presented again after the grace, the first token is a reuse: the family goes, with every tab's token.
      t.clock.advance(10_001)
      const late = await t.client.post('/api/auth/refresh', { json: { refresh_token: refreshToken } })
      expect(late.status).toBe(401)
      expect(late.body.error).toBe('Refresh token reuse detected: this session has been revoked, log in again')
      expect(await t.db.first('select count(*) as live from refresh_tokens where user_id = ? and revoked_at is null', [id])).toEqual({ live: 0 })
    }
  })

  it('a token rotated within the grace but revoked since (logout) gets no new pair', async () => {
    const { refreshToken, token } = await registerUser(t.client)
    expect((await t.client.post('/api/auth/refresh', { json: { refresh_token: refreshToken } })).status).toBe(200)
    expect((await t.client.post('/api/auth/logout', { token })).status).toBe(200)
    expect((await t.client.post('/api/auth/refresh', { json: { refresh_token: refreshToken } })).status).toBe(401)
  })

  it('does not need a bearer header, and ignores one', async () => {
    const a = await registerUser(t.client)
    const b = await registerUser(t.client)
    const response = await t.client.post('/api/auth/refresh', { json: { refresh_token: a.refreshToken }, token: b.token })
    expect(response.status).toBe(200)
    expect(decodeJwt(response.body.data.token).sub).toBe(String(a.id))
  })

  it.each([
    ['missing', {}, 422],
    ['a number', { refresh_token: 12 }, 422],
    ['an array', { refresh_token: ['x'] }, 422],
    ['huge', { refresh_token: 'x'.repeat(5000) }, 422],
    ['garbage', { refresh_token: 'abc.def.ghi' }, 401],
  ])('refresh_token %s => %s', async (_label, json, status) => {
    const response = await t.client.post('/api/auth/refresh', { json })
    expect(response.status).toBe(status)
    expect(response.body.success).toBe(false)
  })

  it('refuses a refresh token past JWT_REFRESH_TTL', async () => {
    const { refreshToken } = await registerUser(t.client)
    t.clock.advance(86_400_000 + 1000)
    try {
      const response = await t.client.post('/api/auth/refresh', { json: { refresh_token: refreshToken } })
      expect(response.status).toBe(401)
      expect(response.body.error).toBe('Token has expired')
    } finally {
      t.clock.advance(-(86_400_000 + 1000))
    }
  })
})

describe('roles', () => {
  it('auth:<role> admits the listed roles and answers 403 Forbidden to others', async () => {
    const user = await registerUser(t.client)
    const denied = await t.client.get('/api/admin/stats', { token: user.token })
    expect(denied.status).toBe(403)
    expect(denied.body).toEqual({ success: false, error: 'Forbidden', code: 403 })
    expect((await t.client.get('/api/admin/stats')).status).toBe(401)

    await setRole(user.id, 'admin')
    expect((await t.client.get('/api/admin/stats', { token: user.token })).body.data).toEqual({ ok: 'admin' })
    expect((await t.client.get('/api/staff/queue', { token: user.token })).status).toBe(200)

    await setRole(user.id, 'moderator')
    expect((await t.client.get('/api/staff/queue', { token: user.token })).status).toBe(200)
    expect((await t.client.get('/api/admin/stats', { token: user.token })).status).toBe(403)
  })

  it('requireRole(c, ...) in a controller: 403 Forbidden, or the user; 401 without auth', async () => {
    const user = await registerUser(t.client)
    const denied = await t.client.get('/api/reports', { token: user.token })
    expect(denied.status).toBe(403)
    expect(denied.body.error).toBe('Forbidden')
    await setRole(user.id, 'admin')
    expect((await t.client.get('/api/reports', { token: user.token })).body.data).toEqual({ by: user.email })
    expect((await t.client.get('/api/reports-unprotected')).status).toBe(401)
  })
})

describe('email verification', () => {
  it('verifies with the mailed token once; the verified alias follows', async () => {
    const { email, token, id } = await registerUser(t.client)
    expect((await t.client.get('/api/verified-only', { token })).status).toBe(403)
    const mail = await t.mailer.waitFor((message) => message.to === email && message.subject === 'Verify your email address')
    const code = /token=([A-Za-z0-9_-]+)/.exec(mail.text)![1]!
    const response = await t.client.post('/api/auth/verify-email', { json: { token: code } })
    expect(response.status).toBe(200)
    expect(response.body).toEqual({ success: true, message: 'Email address verified', data: null })
    expect((await t.db.execute('select email_verified_at from users where id = ?', [id])).rows[0]!.email_verified_at).toBe(
      new Date(t.clock.now()).toISOString(),
    )
    expect((await t.client.get('/api/verified-only', { token })).status).toBe(200)
    const again = await t.client.post('/api/auth/verify-email', { json: { token: code } })
    expect(again.status).toBe(422)
    expect(again.body.errors.token).toEqual(['This verification token is invalid or has expired.'])
  })

  it('refuses an expired token, an unknown one and bad input', async () => {
    const { email } = await registerUser(t.client)
    const mail = await t.mailer.waitFor((message) => message.to === email)
    const code = /token=([A-Za-z0-9_-]+)/.exec(mail.text)![1]!
    t.clock.advance(24 * 3_600_000 + 1)
    try {
      expect((await t.client.post('/api/auth/verify-email', { json: { token: code } })).status).toBe(422)
    } finally {
      t.clock.advance(-(24 * 3_600_000 + 1))
    }
    expect((await t.client.post('/api/auth/verify-email', { json: { token: 'nope' } })).status).toBe(422)
    expect((await t.client.post('/api/auth/verify-email', { json: {} })).body.errors.token).toEqual(['The token field is required.'])
    expect((await t.client.post('/api/auth/verify-email', { json: { token: [1] } })).status).toBe(422)
  })
})

describe('POST /api/auth/verify-email/resend', () => {
  const codeOf = (text: string) => /token=([A-Za-z0-9_-]+)/.exec(text)![1]!

  it('mails a new link to the signed-in user; the earlier link stops working; once verified it says so and mails nothing', async () => {
    const { email, token } = await registerUser(t.client)
    const first = codeOf((await t.mailer.waitFor((m) => m.to === email)).text)
    const resent = await t.client.post('/api/auth/verify-email/resend', { token })
    expect(resent.status).toBe(200)
    expect(resent.body).toEqual({ success: true, message: 'Verification link sent', data: null })
    const second = codeOf((await t.mailer.waitFor((m) => m.to === email && codeOf(m.text) !== first)).text)

    expect((await t.client.post('/api/auth/verify-email', { json: { token: first } })).status).toBe(422)
    expect((await t.client.post('/api/auth/verify-email', { json: { token: second } })).status).toBe(200)

    const mailed = t.mailer.messages.length
    const done = await t.client.post('/api/auth/verify-email/resend', { token })
    expect(done.status).toBe(200)
    expect(done.body).toEqual({ success: true, message: 'Email address is already verified', data: null })
    expect(t.mailer.messages.length).toBe(mailed)
  })

  it('needs a bearer token, and is throttled at 6 a minute per user', async () => {
    expect((await t.client.post('/api/auth/verify-email/resend')).status).toBe(401)
    const { token } = await registerUser(t.client)
    const statuses = []
    for (let i = 0; i < 7; i++) statuses.push((await t.client.post('/api/auth/verify-email/resend', { token })).status)
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429])
    t.clock.advance(60_000)
    expect((await t.client.post('/api/auth/verify-email/resend', { token })).status).toBe(200)
  })
})

describe('password reset', () => {
  let address = 0
  async function requestReset(email: string): Promise<string> {
    const before = t.mailer.messages.length
    const response = await t.client.post('/api/auth/forgot-password', { json: { email }, clientAddress: `10.8.0.${++address}` })
    expect(response.status).toBe(200)
    const mail = await t.mailer.waitFor((m, i = t.mailer.messages.indexOf(m)) => i >= before && m.to === email && m.subject === 'Reset your password')
    expect(mail.text).toContain('/reset-password?token=')
    return decodeURIComponent(/reset-password\?token=([^&\s]+)/.exec(mail.text)![1]!)
  }

  it('answers the same 200 whether or not the email exists', async () => {
    const { email } = await registerUser(t.client)
    const known = await t.client.post('/api/auth/forgot-password', { json: { email } })
    const unknown = await t.client.post('/api/auth/forgot-password', { json: { email: 'nobody-at-all@example.com' } })
    expect(known.status).toBe(200)
    expect(unknown.body).toEqual(known.body)
    expect(known.body.message).toBe('If that email address is registered, a password reset link has been sent to it.')
    await t.mailer.waitFor((m) => m.to === email && m.subject === 'Reset your password')
    expect(t.mailer.messages.some((m) => m.to === 'nobody-at-all@example.com')).toBe(false)
  })

  it('resets once with the token; every earlier token is refused afterwards', async () => {
    const { email, token, refreshToken, id } = await registerUser(t.client)
    const code = await requestReset(email)
    const newPassword = 'a brand new passphrase'
    const response = await t.client.post('/api/auth/reset-password', {
      json: { token: code, password: newPassword, password_confirmation: newPassword },
    })
    expect(response.status).toBe(200)
    expect(response.body).toEqual({ success: true, message: 'Your password has been reset', data: null })
    expect((await t.client.get('/api/auth/me', { token })).status).toBe(401)
    expect((await t.client.post('/api/auth/refresh', { json: { refresh_token: refreshToken } })).status).toBe(401)
    expect((await t.client.post('/api/auth/login', { json: { email, password: PASSWORD } })).status).toBe(401)
    expect((await t.client.post('/api/auth/login', { json: { email, password: newPassword } })).status).toBe(200)
    expect((await t.db.execute('select token_version from users where id = ?', [id])).rows[0]!.token_version).toBe(1)

    const reuse = await t.client.post('/api/auth/reset-password', {
      json: { token: code, password: 'yet another passphrase', password_confirmation: 'yet another passphrase' },
    })
    expect(reuse.status).toBe(422)
    expect(reuse.body.errors.token).toEqual(['This password reset token is invalid or has expired.'])
  })

  it('a newer reset link replaces an older one; a link expires after 60 minutes', async () => {
    const { email } = await registerUser(t.client)
    const older = await requestReset(email)
    const newer = await requestReset(email)
    const body = (token: string) => ({ json: { token, password: 'new password 1', password_confirmation: 'new password 1' } })
    expect((await t.client.post('/api/auth/reset-password', body(older))).status).toBe(422)
    t.clock.advance(60 * 60_000 + 1)
    try {
      expect((await t.client.post('/api/auth/reset-password', body(newer))).status).toBe(422)
    } finally {
      t.clock.advance(-(60 * 60_000 + 1))
    }
  })

  it.each([
    ['forgot-password', {}, 'email'],
    ['forgot-password', { email: 'not an email' }, 'email'],
    ['forgot-password', { email: ['a@b.co'] }, 'email'],
    ['reset-password', { password: 'long enough', password_confirmation: 'long enough' }, 'token'],
    ['reset-password', { token: 'x', password: 'short', password_confirmation: 'short' }, 'password'],
    ['reset-password', { token: 'x', password: 'long enough', password_confirmation: 'different!' }, 'password_confirmation'],
  ])('%s answers 422 for %j', async (route, json, field) => {
    // Own address: forgot-password is throttled per IP.
    const response = await t.client.post(`/api/auth/${route}`, { json, clientAddress: `10.9.0.${++address}` })
    expect(response.status).toBe(422)
    expect(Object.keys(response.body.errors)).toEqual([field])
  })
})

describe('bad input on every auth route with a body', () => {
  const routes = ['register', 'login', 'refresh', 'verify-email', 'forgot-password', 'reset-password']
  let address = 0
  const send = (route: string, init: { body?: string; json?: unknown; headers?: Record<string, string> }) =>
    t.client.post(`/api/auth/${route}`, { ...init, clientAddress: `10.7.0.${++address}` })

  it.each(routes)('%s: malformed JSON => 400, a non-object => 422, an empty body => 422, over the body limit => 413', async (route) => {
    const malformed = await send(route, { body: '{"email": "a@b.co",', headers: { 'content-type': 'application/json' } })
    expect(malformed.status).toBe(400)
    expect(malformed.body).toMatchObject({ success: false, code: 400 })
    for (const json of [[{ email: 'a@b.co' }], 'string', 12, true]) {
      const response = await send(route, { json })
      expect(response.status, JSON.stringify(json)).toBe(422)
      expect(response.body.errors).toEqual({ body: ['The request body must be a JSON object.'] })
    }
    const empty = await send(route, { body: '', headers: { 'content-type': 'application/json' } })
    expect(empty.status).toBe(422)
    expect(Object.keys(empty.body.errors).length).toBeGreaterThan(0)
    const huge = await send(route, { json: { email: 'a@b.co', password: 'x'.repeat(1024 * 1024), token: 'x', refresh_token: 'x' } })
    expect(huge.status).toBe(413)
  })

  it.each(routes)('%s: every field of the wrong type => 422 naming each', async (route) => {
    const response = await send(route, {
      json: { name: {}, email: 1, password: [], password_confirmation: false, token: 7, refresh_token: null },
    })
    expect(response.status).toBe(422)
    for (const messages of Object.values(response.body.errors as Record<string, string[]>)) {
      expect(messages[0]).toMatch(/must be a string|is required/)
    }
  })
})
