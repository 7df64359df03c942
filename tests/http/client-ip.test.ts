/**
 * The client address: the socket peer as the adapter reports it;
 * X-Forwarded-For only when that peer is a configured trusted proxy, and then
 * the right-most hop that is not itself a trusted proxy.
 */
import { describe, expect, it } from 'vitest'
import { createApp, defineRoutes, type App } from 'svc'
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
