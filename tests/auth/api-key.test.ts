/**
 * Machine-to-machine keys: `apikey` compares x-api-key with API_KEY (401
 * Unauthorized otherwise); `apikey:<scopes>` takes keys made by
 * `createApiKey` (what `svc make:apikey` runs), checking expiry, revocation
 * and scopes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { authPlugin, createApiKey, createApp, currentApiKey, defineRoutes, resolveConfig, RouteDefinitionError } from 'svc'
import { createAuthTestApp, TEST_ENV, type AuthTestApp } from './helpers.ts'

const API_KEY = 'machine-key-0123456789abcdef'
let t: AuthTestApp

beforeAll(async () => {
  t = await createAuthTestApp({
    env: { API_KEY },
    api: defineRoutes((r) => {
      r.post('/webhooks/billing', () => ({ received: true })).middleware('apikey')
      r.get('/exports', (c) => ({ key: currentApiKey(c)?.name })).middleware('apikey:exports:read')
      r.post('/exports', () => ({ ok: true })).middleware('apikey:exports:read,exports:write')
    }),
  })
})
afterAll(() => t.close())

describe('apikey (API_KEY)', () => {
  it.each([
    ['no header', undefined],
    ['an empty header', ''],
    ['a wrong key of the same length', API_KEY.replace(/.$/, 'x')],
    ['a prefix of the key', API_KEY.slice(0, 10)],
    ['the key with more after it', `${API_KEY}0`],
    ['a huge header', 'k'.repeat(10_000)],
  ])('answers 401 Unauthorized for %s', async (_label, key) => {
    const response = await t.client.post('/api/webhooks/billing', { headers: key === undefined ? {} : { 'x-api-key': key } })
    expect(response.status).toBe(401)
    expect(response.body).toEqual({ success: false, error: 'Unauthorized', code: 401 })
  })

  it('lets the right key through', async () => {
    const response = await t.client.post('/api/webhooks/billing', { headers: { 'x-api-key': API_KEY } })
    expect(response.status).toBe(200)
    expect(response.body.data).toEqual({ received: true })
  })

  it('refuses to start when a route uses apikey and API_KEY is not set', () => {
    const build = () =>
      createApp({
        config: resolveConfig(TEST_ENV),
        api: defineRoutes((r) => r.get('/x', () => 1).middleware('apikey')),
        plugins: [authPlugin()],
      })
    expect(build).toThrow(RouteDefinitionError)
    expect(build).toThrow(/API_KEY is not set/)
  })
})

describe('apikey:<scopes> (stored keys)', () => {
  it('admits a key holding the scopes, 403 when one is missing', async () => {
    const reader = await createApiKey(t.db, { name: 'reader', scopes: ['exports:read'], days: 30, now: t.clock.now() })
    expect(reader.key).toMatch(/^svc_[A-Za-z0-9_-]{8}_[A-Za-z0-9_-]{43}$/)
    const ok = await t.client.get('/api/exports', { headers: { 'x-api-key': reader.key } })
    expect(ok.status).toBe(200)
    expect(ok.body.data).toEqual({ key: 'reader' })
    const denied = await t.client.post('/api/exports', { headers: { 'x-api-key': reader.key } })
    expect(denied.status).toBe(403)
    expect(denied.body).toEqual({ success: false, error: 'Forbidden', code: 403, missing_scopes: ['exports:write'] })

    const writer = await createApiKey(t.db, { name: 'writer', scopes: ['exports:read', 'exports:write'], days: 30, now: t.clock.now() })
    expect((await t.client.post('/api/exports', { headers: { 'x-api-key': writer.key } })).status).toBe(200)
    const all = await createApiKey(t.db, { name: 'all', scopes: ['*'], days: 1, now: t.clock.now() })
    expect((await t.client.post('/api/exports', { headers: { 'x-api-key': all.key } })).status).toBe(200)
  })

  it('stores only a hash of the key', async () => {
    const created = await createApiKey(t.db, { name: 'hashed', scopes: ['exports:read'], days: 1, now: t.clock.now() })
    const rows = (await t.db.execute('select * from api_keys where id = ?', [created.id])).rows
    expect(JSON.stringify(rows)).not.toContain(created.key)
    expect(String(rows[0]!.key_hash)).toMatch(/^[0-9a-f]{64}$/)
  })

  it('refuses unknown, expired and revoked keys with 401, and the static API_KEY', async () => {
    const created = await createApiKey(t.db, { name: 'short', scopes: ['exports:read'], days: 2, now: t.clock.now() })
    const get = (key: string) => t.client.get('/api/exports', { headers: { 'x-api-key': key } })
    expect((await get('svc_unknown_key')).status).toBe(401)
    expect((await get(API_KEY)).status).toBe(401)
    expect((await t.client.get('/api/exports')).status).toBe(401)
    t.clock.advance(2 * 86_400_000 - 1000)
    expect((await get(created.key)).status).toBe(200)
    t.clock.advance(1000)
    expect((await get(created.key)).status).toBe(401)
    t.clock.advance(-(2 * 86_400_000))
    await t.db.execute("update api_keys set revoked_at = '2026-01-01T00:00:00.000Z' where id = ?", [created.id])
    const revoked = await get(created.key)
    expect(revoked.status).toBe(401)
    expect(revoked.body.error).toBe('Unauthorized')
  })
})
