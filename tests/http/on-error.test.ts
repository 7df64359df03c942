/**
 * `createApp({ onError })` and the default for unexpected errors: the hook
 * sees every error that is not an HttpError (with the context and the trace
 * id) and may answer; without it, a 500 is logged once to stderr with its
 * trace id and stack (no stack in production). Never silent, never leaked.
 */
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest'
import { createApp, defineRoutes, HttpError, TRACE_HEADER, type Context, type ErrorHook, type Middleware, type RouteRegistrar } from 'svc'
import { createTestClient } from 'svc/testing'
import { testConfig } from '../helpers/app.ts'

class PaymentGatewayDown extends Error {
  override name = 'PaymentGatewayDown'
}

const exploding: Middleware = async function exploding(c, next) {
  if (c.headers.get('x-explode') !== null) throw new PaymentGatewayDown('middleware exploded')
  return next()
}

const routes = (r: RouteRegistrar) => {
  r.get('/crash', () => {
    throw new PaymentGatewayDown('gateway timed out after 30 s')
  })
  r.get('/async-crash', async () => {
    await Promise.resolve()
    throw new TypeError('undefined is not a function')
  })
  r.get('/string', () => {
    throw 'a thrown string'
  })
  r.get('/http', () => {
    throw new HttpError(409, 'Conflict')
  })
  r.get('/http-500', () => {
    throw new HttpError(500, 'Deliberate')
  })
  r.get('/ok', () => 'fine').middleware(exploding)
}

let stderr: MockInstance<typeof console.error>
beforeEach(() => {
  stderr = vi.spyOn(console, 'error').mockImplementation(() => {})
})
afterEach(() => stderr.mockRestore())

const logged = () => stderr.mock.calls.map((call) => call.map(String).join(' '))

describe('without onError', () => {
  const client = createTestClient(createApp({ config: testConfig(), api: defineRoutes(routes) }))

  it('logs an unexpected 500 once, with its method, path, trace id and stack', async () => {
    const { status, body, headers } = await client.get('/api/crash')
    expect(status).toBe(500)
    expect(body).toStrictEqual({ success: false, error: 'Internal Server Error', code: 500 })
    const traceId = headers.get(TRACE_HEADER)!
    expect(logged()).toHaveLength(1)
    const [line] = logged()
    expect(line).toContain(`[svc] 500 GET /api/crash (trace ${traceId}): PaymentGatewayDown: gateway timed out after 30 s`)
    expect(line).toMatch(/\n\s+at /) // the stack
  })

  it('logs errors thrown after an await, in middleware, and values that are not Errors', async () => {
    await client.get('/api/async-crash')
    await client.get('/api/ok', { headers: { 'x-explode': '1' } })
    await client.get('/api/string')
    const lines = logged()
    expect(lines).toHaveLength(3)
    expect(lines[0]).toContain('TypeError: undefined is not a function')
    expect(lines[1]).toContain('PaymentGatewayDown: middleware exploded')
    expect(lines[2]).toContain(': a thrown string')
  })

  it('does not log HttpErrors, even a deliberate 500', async () => {
    expect((await client.get('/api/http')).status).toBe(409)
    expect((await client.get('/api/http-500')).status).toBe(500)
    expect(logged()).toEqual([])
  })

  it('in production: one line without the stack', async () => {
    const production = createTestClient(createApp({ config: testConfig({ APP_ENV: 'production' }), api: defineRoutes(routes) }))
    const { headers } = await production.get('/api/crash')
    expect(logged()).toEqual([`[svc] 500 GET /api/crash (trace ${headers.get(TRACE_HEADER)}): PaymentGatewayDown: gateway timed out after 30 s`])
  })
})

describe('createApp({ onError })', () => {
  const seen: Array<{ error: unknown; path: string; traceId: string; contextTraceId: string }> = []
  const onError: ErrorHook = (error, c: Context, traceId) => {
    seen.push({ error, path: c.path, traceId, contextTraceId: c.traceId })
    if (error instanceof PaymentGatewayDown) return c.json({ retry: true }, { status: 503, message: 'Payments are down, try again shortly' })
    return undefined
  }
  const client = createTestClient(createApp({ config: testConfig(), api: defineRoutes(routes), onError }))

  beforeEach(() => {
    seen.length = 0
  })

  it('gets the error, the context and the trace id, and may answer', async () => {
    const { status, body, headers } = await client.get('/api/crash')
    expect(status).toBe(503)
    expect(body).toStrictEqual({ success: true, message: 'Payments are down, try again shortly', data: { retry: true } })
    expect(seen).toHaveLength(1)
    expect(seen[0]!.error).toBeInstanceOf(PaymentGatewayDown)
    expect(seen[0]!.path).toBe('/api/crash')
    expect(seen[0]!.traceId).toBe(headers.get(TRACE_HEADER))
    expect(seen[0]!.contextTraceId).toBe(seen[0]!.traceId)
    expect(logged()).toEqual([]) // the hook replaces the default log line
  })

  it('answering nothing leaves svc\'s 500 envelope; errors from middleware reach it too', async () => {
    const { status, body } = await client.get('/api/async-crash')
    expect(status).toBe(500)
    expect(body.error).toBe('Internal Server Error')
    expect((await client.get('/api/ok', { headers: { 'x-explode': '1' } })).status).toBe(503)
    expect(seen.map((entry) => (entry.error as Error).message)).toEqual(['undefined is not a function', 'middleware exploded'])
  })

  it('is not called for HttpErrors', async () => {
    await client.get('/api/http')
    await client.get('/api/http-500')
    expect(seen).toEqual([])
  })

  it('may answer an HttpError, sent as its error envelope with its headers (sync or async)', async () => {
    const unavailable = () =>
      new HttpError(503, 'Payments are down, try again shortly', { details: { retry_after: 30 }, headers: { 'Retry-After': '30' } })
    for (const hook of [unavailable, async () => unavailable()] as ErrorHook[]) {
      const app = createTestClient(createApp({ config: testConfig(), api: defineRoutes(routes), onError: hook }))
      const { status, body, headers } = await app.get('/api/crash')
      expect(status).toBe(503)
      expect(body).toStrictEqual({ success: false, error: 'Payments are down, try again shortly', code: 503, retry_after: 30 })
      expect(headers.get('retry-after')).toBe('30')
      expect(headers.get(TRACE_HEADER)).toMatch(/^svc_/)
    }
    expect(logged()).toEqual([])
  })

  it('an async hook may answer; a hook that throws leaves the 500 and logs both errors', async () => {
    const asyncApp = createTestClient(
      createApp({ config: testConfig(), api: defineRoutes(routes), onError: async (_error, c) => c.json(null, { status: 502 }) }),
    )
    expect((await asyncApp.get('/api/crash')).status).toBe(502)

    const broken = createTestClient(
      createApp({
        config: testConfig(),
        api: defineRoutes(routes),
        onError: () => {
          throw new Error('reporter offline')
        },
      }),
    )
    const { status, headers } = await broken.get('/api/crash')
    expect(status).toBe(500)
    expect(headers.get(TRACE_HEADER)).toMatch(/^svc_/)
    const lines = logged()
    expect(lines).toHaveLength(2)
    expect(lines[0]).toContain('gateway timed out')
    expect(lines[1]).toContain('onError failed')
    expect(lines[1]).toContain('reporter offline')
  })
})
