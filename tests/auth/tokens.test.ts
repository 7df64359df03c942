/**
 * Token attacks and configuration: alg none, HS256 signed with the RS256
 * public key, wrong key, tampered payload, expired, not yet valid, access and
 * refresh swapped, iss/aud, key checks at start-up, RS256 with the JWKS.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, SignJWT, UnsecuredJWT } from 'jose'
import { authPlugin, ConfigError, createApp, generateRsaKeyPair, resolveConfig } from 'svc'
import { createTestClient } from 'svc/testing'
import { DEFAULT_REDACTED_FIELDS, DEFAULT_REDACTED_HEADERS, Redactor } from 'svc/trace'
import { createAuthTestApp, openTestDatabase, registerUser, SECRET, TEST_ENV, type AuthTestApp } from './helpers.ts'

const secretKey = new TextEncoder().encode(SECRET)

/** A token as svc would sign it for `sub`, with changes. */
function forge(claims: Record<string, unknown>, sub: string, alg = 'HS256') {
  const now = Math.floor(Date.UTC(2026, 0, 1, 12) / 1000)
  return new SignJWT({ typ: 'access', ver: 0, ...claims })
    .setProtectedHeader({ alg, typ: 'JWT' })
    .setSubject(sub)
    .setIssuedAt(now)
    .setExpirationTime(now + 900)
    .setJti(crypto.randomUUID())
}

describe('HS256', () => {
  let t: AuthTestApp
  beforeAll(async () => {
    t = await createAuthTestApp({ env: { JWT_TTL: '900', JWT_REFRESH_TTL: '7200' } })
  })
  afterAll(() => t.close())

  it('carries sub, iat, nbf, exp, jti, typ and ver; expires_in and the lifetimes follow the config', async () => {
    const { token, refreshToken, id, response } = await registerUser(t.client)
    const access = decodeJwt(token)
    expect(access).toMatchObject({ sub: String(id), typ: 'access', ver: 0, iat: t.clock.now() / 1000, nbf: t.clock.now() / 1000 })
    expect(access.exp! - access.iat!).toBe(900)
    expect(access.jti).toMatch(/^[0-9a-f-]{36}$/)
    expect(response.body.data.expires_in).toBe(900)
    const refresh = decodeJwt(refreshToken)
    expect(refresh).toMatchObject({ typ: 'refresh', ver: 0 })
    expect(refresh.exp! - refresh.iat!).toBe(7200)
    expect(refresh.jti).not.toBe(access.jti)
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'HS256', typ: 'JWT' })
    expect(access.iss).toBeUndefined()
  })

  it('accepts a token svc signs, refuses alg none', async () => {
    const { id } = await registerUser(t.client)
    const good = await forge({}, String(id)).sign(secretKey)
    expect((await t.client.get('/api/auth/me', { token: good })).status).toBe(200)
    const now = Math.floor(t.clock.now() / 1000)
    const none = new UnsecuredJWT({ typ: 'access', ver: 0 }).setSubject(String(id)).setIssuedAt(now).setExpirationTime(now + 900).setJti('x').encode()
    const response = await t.client.get('/api/auth/me', { token: none })
    expect(response.status).toBe(401)
    expect(response.body.error).toBe('Invalid token')
    // alg none with a signature part left in place
    const [header, payload] = good.split('.')
    const noneHeader = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')
    expect((await t.client.get('/api/auth/me', { token: `${noneHeader}.${payload}.` })).status).toBe(401)
    expect(header).toBeTruthy()
  })

  it('refuses a token signed with another key, or with another algorithm on the same secret', async () => {
    const { id } = await registerUser(t.client)
    const other = await forge({}, String(id)).sign(new TextEncoder().encode('another-secret-of-at-least-32-characters!!'))
    expect((await t.client.get('/api/auth/me', { token: other })).status).toBe(401)
    const hs512 = await forge({}, String(id), 'HS512').sign(secretKey)
    expect((await t.client.get('/api/auth/me', { token: hs512 })).status).toBe(401)
  })

  it('refuses a tampered payload', async () => {
    const a = await registerUser(t.client)
    const b = await registerUser(t.client)
    const [header, , signature] = a.token.split('.')
    const payload = Buffer.from(JSON.stringify({ ...decodeJwt(a.token), sub: String(b.id) })).toString('base64url')
    const response = await t.client.get('/api/auth/me', { token: `${header}.${payload}.${signature}` })
    expect(response.status).toBe(401)
  })

  it('refuses an expired token (injected clock), with its own message', async () => {
    const { token } = await registerUser(t.client)
    t.clock.advance(900_000 - 1000)
    expect((await t.client.get('/api/auth/me', { token })).status).toBe(200)
    t.clock.advance(1000)
    try {
      const response = await t.client.get('/api/auth/me', { token })
      expect(response.status).toBe(401)
      expect(response.body.error).toBe('Token has expired')
      expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"')
    } finally {
      t.clock.advance(-900_000)
    }
  })

  it('refuses a token that is not yet valid (nbf / iat in the future), saying so, with 60 s of clock skew allowed', async () => {
    const { id } = await registerUser(t.client)
    const now = Math.floor(t.clock.now() / 1000)
    const notYetValid = async (token: string) => {
      const response = await t.client.get('/api/auth/me', { token })
      expect(response.status).toBe(401)
      expect(response.body).toMatchObject({ error: 'Token is not yet valid', code: 401 })
      expect(response.headers.get('www-authenticate')).toBe('Bearer realm="api", error="invalid_token", error_description="Token is not yet valid"')
    }
    const future = await forge({}, String(id)).setIssuedAt(now + 600).setNotBefore(now + 600).setExpirationTime(now + 1500).sign(secretKey)
    await notYetValid(future)
    await notYetValid(await forge({}, String(id)).setNotBefore(now + 600).sign(secretKey))
    // A future iat alone (no nbf) was accepted: the token claims to be issued ten minutes from now.
    await notYetValid(await forge({}, String(id)).setIssuedAt(now + 600).setExpirationTime(now + 1500).sign(secretKey))
    // Another instance's clock a minute ahead: its fresh tokens are taken here at once.
    const skewed = await forge({}, String(id)).setIssuedAt(now + 60).setNotBefore(now + 60).setExpirationTime(now + 960).sign(secretKey)
    expect((await t.client.get('/api/auth/me', { token: skewed })).status).toBe(200)
    await notYetValid(await forge({}, String(id)).setIssuedAt(now + 61).setNotBefore(now + 61).setExpirationTime(now + 961).sign(secretKey))
    t.clock.advance(600_000)
    try {
      expect((await t.client.get('/api/auth/me', { token: future })).status).toBe(200)
    } finally {
      t.clock.advance(-600_000)
    }
  })

  it('gives exp no leeway: a token is refused the second it expires, not a skew later', async () => {
    const { id } = await registerUser(t.client)
    const now = Math.floor(t.clock.now() / 1000)
    const token = await forge({}, String(id)).setIssuedAt(now - 900).setExpirationTime(now).sign(secretKey)
    const response = await t.client.get('/api/auth/me', { token })
    expect(response.status).toBe(401)
    expect(response.body.error).toBe('Token has expired')
  })

  it('never takes a refresh token as an access token, nor the reverse', async () => {
    const { token, refreshToken } = await registerUser(t.client)
    const asAccess = await t.client.get('/api/auth/me', { token: refreshToken })
    expect(asAccess.status).toBe(401)
    expect(asAccess.body.error).toBe('Invalid token (not an access token)')
    const asRefresh = await t.client.post('/api/auth/refresh', { json: { refresh_token: token } })
    expect(asRefresh.status).toBe(401)
    expect(asRefresh.body.error).toBe('Invalid token (not a refresh token)')
    // A trace shows both messages as they are: "token: not ..." read as a key and its secret lost the word "not".
    const redactor = new Redactor(new Set(DEFAULT_REDACTED_HEADERS), new Set(DEFAULT_REDACTED_FIELDS))
    for (const message of [asAccess.body.error, asRefresh.body.error]) expect(redactor.text(message)).toBe(message)
  })

  it('refuses tokens missing a required claim or with a malformed one', async () => {
    const { id } = await registerUser(t.client)
    const cases = [
      forge({ typ: undefined }, String(id)),
      forge({ ver: undefined }, String(id)),
      forge({ ver: '0' }, String(id)),
      forge({}, 'abc'),
      new SignJWT({ typ: 'access', ver: 0 }).setProtectedHeader({ alg: 'HS256' }).setSubject(String(id)).setIssuedAt(Math.floor(t.clock.now() / 1000)).setExpirationTime('1h'),
    ]
    for (const jwt of cases) {
      expect((await t.client.get('/api/auth/me', { token: await jwt.sign(secretKey) })).status).toBe(401)
    }
  })

  it('imports the key once per process, not per request', async () => {
    const app = await createAuthTestApp()
    try {
      const spy = vi.spyOn(crypto.subtle, 'importKey')
      const { token } = await registerUser(app.client)
      for (let i = 0; i < 5; i++) expect((await app.client.get('/api/auth/me', { token })).status).toBe(200)
      expect(spy).not.toHaveBeenCalled()
      spy.mockRestore()
    } finally {
      await app.close()
    }
  })

  it('remembers verified access tokens, still refusing them once expired or revoked', async () => {
    for (const size of ['10000', '1', '0']) {
      const app = await createAuthTestApp({ env: { JWT_VERIFY_CACHE_SIZE: size, JWT_TTL: '60' } })
      try {
        const a = await registerUser(app.client)
        const b = await registerUser(app.client)
        const verify = vi.spyOn(crypto.subtle, 'verify')
        for (let i = 0; i < 3; i++) {
          expect((await app.client.get('/api/auth/me', { token: a.token })).status).toBe(200)
          expect((await app.client.get('/api/auth/me', { token: b.token })).status).toBe(200)
        }
        // With room for both, each token is verified once; with room for one they evict each other; 0 is off.
        expect(verify.mock.calls.length, `cache ${size}`).toBe(size === '10000' ? 2 : 6)
        verify.mockRestore()
        const [header, payload, signature] = a.token.split('.')
        const tampered = `${header}.${Buffer.from(JSON.stringify({ ...decodeJwt(a.token), ver: 5 })).toString('base64url')}.${signature}`
        expect((await app.client.get('/api/auth/me', { token: tampered })).status).toBe(401)
        expect(payload).toBeTruthy()
        await app.client.post('/api/auth/logout', { token: b.token })
        expect((await app.client.get('/api/auth/me', { token: b.token })).status).toBe(401)
        app.clock.advance(60_000)
        const expired = await app.client.get('/api/auth/me', { token: a.token })
        expect(expired.status).toBe(401)
        expect(expired.body.error).toBe('Token has expired')
      } finally {
        await app.close()
      }
    }
  })

  it('has no JWKS route', async () => {
    expect((await t.client.get('/.well-known/jwks.json')).status).toBe(404)
  })
})

describe('issuer and audience', () => {
  it('are set when configured and required on verify', async () => {
    const t = await createAuthTestApp({ env: { JWT_ISSUER: 'https://api.example.com', JWT_AUDIENCE: 'blog' } })
    try {
      const { token, id } = await registerUser(t.client)
      expect(decodeJwt(token)).toMatchObject({ iss: 'https://api.example.com', aud: 'blog' })
      expect((await t.client.get('/api/auth/me', { token })).status).toBe(200)
      for (const [iss, aud] of [[undefined, 'blog'], ['https://evil.example', 'blog'], ['https://api.example.com', 'other']]) {
        const jwt = forge({}, String(id))
        if (iss) jwt.setIssuer(iss)
        if (aud) jwt.setAudience(aud)
        expect((await t.client.get('/api/auth/me', { token: await jwt.sign(secretKey) })).status, `${iss} ${aud}`).toBe(401)
      }
    } finally {
      await t.close()
    }
  })
})

describe('start-up checks', () => {
  it('HS256 refuses to start without JWT_SECRET, naming it and the fix', async () => {
    const { db, dir } = await openTestDatabase()
    try {
      const build = () => createApp({ config: resolveConfig({ ...TEST_ENV, JWT_SECRET: undefined }), database: db, plugins: [authPlugin()] })
      expect(build).toThrow(ConfigError)
      expect(build).toThrow(/JWT_SECRET: is required .*svc key:generate/)
    } finally {
      db.close()
      ;(await import('node:fs')).rmSync(dir, { recursive: true, force: true })
    }
  })

  it('a JWT_SECRET shorter than 32 characters is refused', () => {
    expect(() => resolveConfig({ JWT_SECRET: 'x'.repeat(31) })).toThrow(/JWT_SECRET: must be at least 32 characters/)
  })

  it('RS256 refuses to start without a private key, or with a malformed one', async () => {
    const { db, dir } = await openTestDatabase()
    try {
      const build = (env: Record<string, string>) => () =>
        createApp({ config: resolveConfig({ ...TEST_ENV, JWT_ALGORITHM: 'RS256', ...env }), database: db, plugins: [authPlugin()] })
      expect(build({})).toThrow(/JWT_PRIVATE_KEY: JWT_ALGORITHM=RS256 needs a key pair.*key:generate --rs256/)
      expect(build({ JWT_PRIVATE_KEY: 'not a pem' })).toThrow(/PKCS#8/)
      expect(build({ JWT_PRIVATE_KEY: '-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----' })).toThrow(/PKCS#1/)
    } finally {
      db.close()
      ;(await import('node:fs')).rmSync(dir, { recursive: true, force: true })
    }
  })

  it('without a database (route listing) the routes are built without keys', () => {
    const app = createApp({ config: resolveConfig({}), plugins: [authPlugin()] })
    expect(app.routes().map((route) => `${route.method} ${route.path}`)).toEqual(
      expect.arrayContaining(['POST /api/auth/login', 'GET /api/auth/me', 'POST /api/auth/reset-password']),
    )
  })
})

describe('RS256', () => {
  let t: AuthTestApp
  let keys: { privateKey: string; publicKey: string }
  beforeAll(async () => {
    keys = await generateRsaKeyPair()
    t = await createAuthTestApp({
      // One-line PEM with \n escapes, as a .env holds it.
      env: { JWT_ALGORITHM: 'RS256', JWT_PRIVATE_KEY: keys.privateKey.replace(/\n/g, '\\n') },
      plugin: { keys: { publicKey: keys.publicKey } },
    })
  })
  afterAll(() => t.close())

  it('signs with the private key and publishes the public one at /.well-known/jwks.json', async () => {
    const { token, id } = await registerUser(t.client)
    expect((await t.client.get('/api/auth/me', { token })).status).toBe(200)
    const header = decodeProtectedHeader(token)
    expect(header.alg).toBe('RS256')
    const jwks = await t.client.get('/.well-known/jwks.json')
    expect(jwks.status).toBe(200)
    expect(jwks.headers.get('cache-control')).toBe('public, max-age=300')
    expect(jwks.body.keys).toHaveLength(1)
    expect(jwks.body.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', kid: header.kid, e: 'AQAB' })
    expect(jwks.body.keys[0].d).toBeUndefined()
    const { payload } = await jwtVerify(token, createLocalJWKSet(jwks.body), { currentDate: new Date(t.clock.now()) })
    expect(payload.sub).toBe(String(id))
  })

  it('refuses an HS256 token whose HMAC key is the RS256 public key (algorithm confusion)', async () => {
    const { id } = await registerUser(t.client)
    for (const secret of [keys.publicKey, keys.publicKey.trim()]) {
      const confused = await forge({}, String(id)).sign(new TextEncoder().encode(secret))
      const response = await t.client.get('/api/auth/me', { token: confused })
      expect(response.status).toBe(401)
    }
  })

  it('refuses a token signed by another RS256 key', async () => {
    const { id } = await registerUser(t.client)
    const other = await generateRsaKeyPair()
    const { importPKCS8 } = await import('jose')
    const token = await forge({}, String(id), 'RS256').sign(await importPKCS8(other.privateKey, 'RS256'))
    expect((await t.client.get('/api/auth/me', { token })).status).toBe(401)
  })

  it('reports a public key that does not match the private key in /health/ready', async () => {
    const other = await generateRsaKeyPair()
    const app = await createAuthTestApp({
      env: { JWT_ALGORITHM: 'RS256', JWT_PRIVATE_KEY: keys.privateKey, JWT_PUBLIC_KEY: other.publicKey },
    })
    try {
      const ready = await app.client.get('/health/ready')
      expect(ready.status).toBe(503)
      expect(JSON.stringify(ready.body)).toContain('does not match JWT_PRIVATE_KEY')
      const register = await app.client.post('/api/auth/register', {
        json: { name: 'K', email: 'k@example.com', password: 'whatever1', password_confirmation: 'whatever1' },
      })
      expect(register.status).toBe(500)
    } finally {
      await app.close()
    }
  })

  it('derives the public key from the private key when only that is given', async () => {
    const app = await createAuthTestApp({ env: { JWT_ALGORITHM: 'RS256', JWT_PRIVATE_KEY: keys.privateKey } })
    try {
      const jwks = await createTestClient(app.app).get('/.well-known/jwks.json')
      const mine = await t.client.get('/.well-known/jwks.json')
      expect(jwks.body).toEqual(mine.body)
      expect((await app.client.get('/health/ready')).status).toBe(200)
    } finally {
      await app.close()
    }
  })
})
