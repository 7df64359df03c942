/**
 * `X-Service-Trace-Id: <prefix>_<32 hex>` on every response, whatever answered
 * it: a route, a 404, a 405, OPTIONS, a 500, HEAD, a preflight, a 400 from a
 * malformed path; distinct per request; TRACE_PREFIX honoured.
 */
import { describe, expect, it } from 'vitest'
import { createApp, defineRoutes, TRACE_HEADER, type App } from 'svc'
import { TRACE_ID_PATTERN } from 'svc/trace'
import { testConfig } from '../helpers/app.ts'
import { withServer } from '../helpers/server.ts'

function traceApp(vars: Record<string, string> = {}): App {
  return createApp({
    config: testConfig({ CORS_ORIGINS: 'https://app.example', ...vars }),
    api: defineRoutes((r) => {
      r.get('/posts', () => [])
      r.get('/posts/{id}', (c) => ({ id: c.params.id })).where('id', /\d+/)
      r.get('/crash', () => {
        throw new Error('boom')
      })
      r.get('/raw', () => new Response('raw'))
      r.get('/own-id', (c) => new Response('x', { headers: { [TRACE_HEADER]: 'svc_forged' } }))
      r.get('/context', (c) => ({ traceId: c.traceId }))
    }),
  })
}

const requests: Array<[string, string, Record<string, string>?]> = [
  ['GET', '/api/posts'],
  ['GET', '/api/nothing'],
  ['DELETE', '/api/posts'],
  ['OPTIONS', '/api/posts'],
  ['OPTIONS', '/api/posts', { Origin: 'https://app.example', 'Access-Control-Request-Method': 'GET' }],
  ['GET', '/api/crash'],
  ['HEAD', '/api/posts'],
  ['GET', '/api/posts/%E0%A4%A'],
  ['GET', '/api/raw'],
  ['GET', '/health/live'],
]

describe('trace id header', () => {
  const app = traceApp()

  it.each(requests)('%s %s carries a trace id of the form svc_<32 hex>', async (method, path, headers) => {
    const response = await app.fetch(new Request(`http://localhost${path}`, { method, headers }))
    expect(response.headers.get(TRACE_HEADER)).toMatch(/^svc_[0-9a-f]{32}$/)
    expect(response.headers.get(TRACE_HEADER)).toMatch(TRACE_ID_PATTERN)
  })

  it('the statuses above are the ones the cases mean', async () => {
    const statuses = await Promise.all(
      requests.map(async ([method, path, headers]) => (await app.fetch(new Request(`http://localhost${path}`, { method, headers }))).status),
    )
    expect(statuses).toEqual([200, 404, 405, 204, 204, 500, 200, 400, 200, 200])
  })

  it('is distinct per request and equals c.traceId', async () => {
    const ids = new Set<string>()
    for (let i = 0; i < 300; i++) {
      const response = await app.fetch(new Request('http://localhost/api/context'))
      const header = response.headers.get(TRACE_HEADER)!
      expect((await response.json()).data.traceId).toBe(header)
      ids.add(header)
    }
    expect(ids.size).toBe(300)
  })

  it('a handler cannot forge it', async () => {
    const response = await app.fetch(new Request('http://localhost/api/own-id'))
    expect(response.headers.get(TRACE_HEADER)).toMatch(/^svc_[0-9a-f]{32}$/)
  })

  it('TRACE_PREFIX is honoured', async () => {
    const response = await traceApp({ TRACE_PREFIX: 'blog2' }).fetch(new Request('http://localhost/api/nothing'))
    expect(response.headers.get(TRACE_HEADER)).toMatch(/^blog2_[0-9a-f]{32}$/)
  })

  it('crosses the wire on every kind of response', async () => {
    await withServer(app, async (server) => {
      for (const [method, path, headers] of requests) {
        const response = await fetch(`${server.url}${path}`, { method, headers })
        await response.arrayBuffer()
        expect(response.headers.get(TRACE_HEADER), `${method} ${path}`).toMatch(/^svc_[0-9a-f]{32}$/)
      }
    })
  })
})
