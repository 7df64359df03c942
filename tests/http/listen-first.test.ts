/**
 * Listening before the app is built (framework/app/listen-first.ts), as
 * `svc serve` and the Node, Deno and Bun entries do: APP_URL follows the address
 * the server got unless it is set, and a request that arrives before the
 * app is ready waits for it.
 */
import { describe, expect, it } from 'vitest'
import { createApp, defineRoutes, HttpError, pendingApp, resolveConfig, withServedUrl } from 'svc'
import { testConfig } from '../helpers/app.ts'

describe('withServedUrl', () => {
  it('sets APP_URL to where the server listens when it is unset or blank; a wildcard bind is localhost; a set one is kept', () => {
    expect(withServedUrl({ PORT: '0' }, { host: '127.0.0.1', port: 41235 }).APP_URL).toBe('http://127.0.0.1:41235')
    expect(withServedUrl({ APP_URL: ' ' }, { host: '0.0.0.0', port: 8080 }).APP_URL).toBe('http://localhost:8080')
    expect(withServedUrl({}, { host: '::1', port: 3000 }).APP_URL).toBe('http://[::1]:3000')
    expect(withServedUrl({ APP_URL: 'https://api.example.com' }, { host: '127.0.0.1', port: 1 }).APP_URL).toBe('https://api.example.com')
    expect(resolveConfig(withServedUrl({ JWT_SECRET: 'x'.repeat(32) }, { host: '127.0.0.1', port: 5 })).vars.APP_URL).toBe('http://127.0.0.1:5')
  })
})

describe('pendingApp', () => {
  const app = createApp({ config: testConfig(), api: defineRoutes((r) => r.get('/ping', () => ({ pong: true }))) })

  it('answers a request that arrived before the app was ready once it is, and later ones directly', async () => {
    const pending = pendingApp()
    const early = pending.fetch(new Request('http://localhost/api/ping'))
    pending.ready(app)
    expect(await (await early).json()).toMatchObject({ data: { pong: true } })
    expect((await pending.fetch(new Request('http://localhost/api/ping'))).status).toBe(200)
  })

  it('hands on the built app\'s reject (Node answers a request its parser refused with it), none before', async () => {
    const pending = pendingApp()
    expect(pending.reject).toBeUndefined()
    pending.ready(app)
    const answer = pending.reject!(new Request('http://localhost/'), new HttpError(400, 'Bad request'))
    expect(answer.status).toBe(400)
    expect(await answer.json()).toMatchObject({ success: false, code: 400 })
    const fetchOnly = pendingApp()
    fetchOnly.ready({ fetch: app.fetch })
    expect(fetchOnly.reject).toBeUndefined()
  })

  it('fails the waiting requests when the app could not be built', async () => {
    const pending = pendingApp()
    const early = pending.fetch(new Request('http://localhost/api/ping'))
    pending.failed(new Error('no database'))
    await expect(early).rejects.toThrow('no database')
  })
})
