/**
 * JWT_REFRESH_REUSE_GRACE: 0, the default, is strict (the loser of two concurrent
 * refreshes is a reuse, and the family is revoked), a bad value is refused
 * when the app is made, and a set value is the window's length.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { authPlugin, ConfigError, createApp, resolveConfig } from 'svc'
import { createAuthTestApp, registerUser, TEST_ENV, type AuthTestApp } from './helpers.ts'

let t: AuthTestApp | undefined
afterEach(async () => {
  await t?.close()
  t = undefined
})

describe('the refresh token reuse grace', () => {
  it.each([['by default', {}], ['with 0', { JWT_REFRESH_REUSE_GRACE: '0' }]])('is none %s: of two refreshes in flight at once one wins, the other is a reuse that revokes the family', async (_, env) => {
    t = await createAuthTestApp({ env })
    const app = t
    const { refreshToken, id } = await registerUser(app.client)
    const results = await Promise.all([0, 1].map(() => app.client.post('/api/auth/refresh', { json: { refresh_token: refreshToken } })))
    expect(results.map((r) => r.status).sort()).toEqual([200, 401])
    const winner = results.find((r) => r.status === 200)!
    expect(results.find((r) => r.status === 401)!.body.error).toBe('Refresh token reuse detected: this session has been revoked, log in again')
    expect((await app.client.post('/api/auth/refresh', { json: { refresh_token: winner.body.data.refresh_token } })).status).toBe(401)
    expect(await app.db.first("select count(*) as events from security_events where type = 'refresh_token_reuse' and user_id = ?", [id])).toEqual({ events: 1 })
  })

  it('a set grace is the window: a second before its end a new pair, at its end a reuse', async () => {
    t = await createAuthTestApp({ env: { JWT_REFRESH_REUSE_GRACE: '30' } })
    const { refreshToken } = await registerUser(t.client)
    expect((await t.client.post('/api/auth/refresh', { json: { refresh_token: refreshToken } })).status).toBe(200)
    t.clock.advance(29_000)
    expect((await t.client.post('/api/auth/refresh', { json: { refresh_token: refreshToken } })).status).toBe(200)
    t.clock.advance(1_001)
    const late = await t.client.post('/api/auth/refresh', { json: { refresh_token: refreshToken } })
    expect(late.status).toBe(401)
    expect(late.body.error).toMatch(/reuse detected/)
  })

  it.each([['-1'], ['301'], ['ten'], ['1.5']])('refuses JWT_REFRESH_REUSE_GRACE=%s when the app is made, naming it', (value) => {
    const make = () => createApp({ config: resolveConfig({ ...TEST_ENV, JWT_REFRESH_REUSE_GRACE: value }), plugins: [authPlugin()] })
    expect(make).toThrow(ConfigError)
    expect(make).toThrow(/JWT_REFRESH_REUSE_GRACE/)
  })
})
