/**
 * The client address: the socket peer as the adapter reports it;
 * X-Forwarded-For only when that peer is a configured trusted proxy, and then
 * the right-most hop that is not itself a trusted proxy.
 */
import { describe, expect, it } from 'vitest'
import { CONN_INFO, createApp, defineRoutes, type App, type ConnInfo } from 'svc'
import { createTestClient } from 'svc/testing'
import { testConfig } from '../helpers/app.ts'
import { withServer } from '../helpers/server.ts'

function ipApp(trustedProxies = ''): App {
  return createApp({
    config: testConfig({ TRUSTED_PROXIES: trustedProxies }),
    web: defineRoutes((r) => r.get('/ip', (c) => ({ ip: c.ip ?? null }))),
  })
}

const ipOf = async (app: App, clientAddress: string, headers: Record<string, string> = {}) =>
  (await createTestClient(app).get('/ip', { clientAddress, headers })).body.data.ip

describe('client IP', () => {
  it('is the peer address', async () => {
    expect(await ipOf(ipApp(), '203.0.113.9')).toBe('203.0.113.9')
  })

  it('ignores X-Forwarded-For when no proxy is trusted', async () => {
    expect(await ipOf(ipApp(), '203.0.113.9', { 'X-Forwarded-For': '1.2.3.4' })).toBe('203.0.113.9')
  })

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy', async () => {
    expect(await ipOf(ipApp('10.0.0.1'), '203.0.113.9', { 'X-Forwarded-For': '1.2.3.4' })).toBe('203.0.113.9')
  })

  it('believes X-Forwarded-For from a trusted proxy', async () => {
    expect(await ipOf(ipApp('10.0.0.1'), '10.0.0.1', { 'X-Forwarded-For': '198.51.100.7' })).toBe('198.51.100.7')
  })

  it('takes the right-most untrusted hop (the left ones are whatever the client wrote)', async () => {
    const app = ipApp('10.0.0.1, 10.0.0.2')
    expect(await ipOf(app, '10.0.0.1', { 'X-Forwarded-For': '6.6.6.6, 198.51.100.7, 10.0.0.2' })).toBe('198.51.100.7')
  })

  // Issue 11, item 6: with `*` every hop was trusted and the left-most entry, the client's own choice,
  // was taken: a client bypassed the login throttle by sending a new X-Forwarded-For each time.
  it('TRUSTED_PROXIES=* trusts the peer as one proxy: the right-most entry, whatever the client put before it', async () => {
    const app = ipApp('*')
    expect(await ipOf(app, '10.0.0.1', { 'X-Forwarded-For': '6.6.6.6, 198.51.100.7' })).toBe('198.51.100.7')
    expect(await ipOf(app, '10.0.0.1', { 'X-Forwarded-For': '7.7.7.7, 198.51.100.7' })).toBe('198.51.100.7')
    expect(await ipOf(app, '10.0.0.1', { 'X-Forwarded-For': '198.51.100.7' })).toBe('198.51.100.7')
    expect(await ipOf(app, '10.0.0.1')).toBe('10.0.0.1')
  })

  it('a trusted proxy without X-Forwarded-For is itself the client', async () => {
    expect(await ipOf(ipApp('10.0.0.1'), '10.0.0.1')).toBe('10.0.0.1')
  })

  it('an IPv4-mapped IPv6 peer matches its IPv4 proxy entry', async () => {
    expect(await ipOf(ipApp('10.0.0.1'), '::ffff:10.0.0.1', { 'X-Forwarded-For': '198.51.100.7' })).toBe('198.51.100.7')
  })

  it('no peer (a runtime that does not say): undefined, and X-Forwarded-For is not believed', async () => {
    const response = await ipApp('*').fetch(new Request('http://localhost/ip', { headers: { 'X-Forwarded-For': '1.2.3.4' } }))
    expect((await response.json()).data.ip).toBeNull()
  })

  it('through the Node server: the socket peer, and X-Forwarded-For only when 127.0.0.1 is trusted', async () => {
    await withServer(ipApp(), async (server) => {
      const response = await fetch(`${server.url}/ip`, { headers: { 'X-Forwarded-For': '1.2.3.4' } })
      expect((await response.json()).data.ip).toMatch(/^(::ffff:)?127\.0\.0\.1$/)
    })
    await withServer(ipApp('127.0.0.1'), async (server) => {
      const response = await fetch(`${server.url}/ip`, { headers: { 'X-Forwarded-For': '1.2.3.4' } })
      expect((await response.json()).data.ip).toBe('1.2.3.4')
    })
  })
})

describe('connection info: a typed value under a symbol, never a key of env', () => {
  const seen: Array<ConnInfo | undefined> = []
  const app = createApp({
    config: testConfig(),
    web: defineRoutes((r) =>
      r.get('/ip', (c) => {
        seen.push(c.connInfo)
        return { ip: c.ip ?? null }
      }),
    ),
  })
  const ipWith = async (target: App, env: unknown, headers: Record<string, string> = {}) =>
    (await (await target.fetch(new Request('http://localhost/ip', { headers }), env)).json()).data.ip

  it('comes from what the adapter puts under CONN_INFO, and is on the context', async () => {
    seen.length = 0
    expect(await ipWith(app, { [CONN_INFO]: { remoteAddress: '192.0.2.10' } })).toBe('192.0.2.10')
    expect(seen[0]).toEqual({ remoteAddress: '192.0.2.10' })
  })

  it('on Workers, env is the bindings: a binding named clientAddress is not the peer', async () => {
    const bindings = { clientAddress: '6.6.6.6', remoteAddress: '6.6.6.6', requestHeaders: { 'x-forwarded-for': '6.6.6.6' }, DATABASE_URL: 'libsql://x' }
    expect(await ipWith(app, bindings)).toBeNull()
    // Even with every proxy trusted, no peer means no X-Forwarded-For either.
    const trusting = createApp({ config: testConfig({ TRUSTED_PROXIES: '*' }), web: defineRoutes((r) => r.get('/ip', (c) => ({ ip: c.ip ?? null }))) })
    expect(await ipWith(trusting, bindings, { 'X-Forwarded-For': '6.6.6.6' })).toBeNull()
  })

  it('a runtime that says it otherwise gives its own reader (createApp({ connInfo }))', async () => {
    const workers = createApp({
      config: testConfig(),
      connInfo: (request) => ({ remoteAddress: request.headers.get('cf-connecting-ip') ?? undefined }),
      web: defineRoutes((r) => r.get('/ip', (c) => ({ ip: c.ip ?? null }))),
    })
    expect(await ipWith(workers, { clientAddress: '6.6.6.6' }, { 'cf-connecting-ip': '198.51.100.23' })).toBe('198.51.100.23')
  })

  it('the Node server passes the socket peer and its parsed headers', async () => {
    seen.length = 0
    await withServer(app, async (server) => {
      await fetch(`${server.url}/ip`, { headers: { 'X-Custom': 'yes' } })
    })
    expect(seen[0]?.remoteAddress).toMatch(/^(::ffff:)?127\.0\.0\.1$/)
    expect(seen[0]?.headers?.['x-custom']).toBe('yes')
  })
})
