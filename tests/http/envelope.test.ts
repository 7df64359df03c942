/**
 * What handlers return and throw, as the client sees it: the success
 * envelope `{ success, message?, data }` and the error envelope
 * `{ success: false, error, code, ...details }`.
 */
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { createApp, defineRoutes, HttpError, ValidationError, type App, type RouteRegistrar } from 'svc'
import { createTestClient } from 'svc/testing'
import { testConfig } from '../helpers/app.ts'
import { successEnvelope, successEnvelopeText } from '../../framework/http/response.ts'

function appWith(define: (r: RouteRegistrar) => void, vars: Record<string, string> = {}): App {
  return createApp({ config: testConfig(vars), api: defineRoutes(define) })
}

describe('success envelope', () => {
  const client = createTestClient(
    appWith((r) => {
      r.get('/object', () => ({ id: 1, title: 'Hello' }))
      r.get('/array', () => [1, 2, 3])
      r.get('/string', () => 'plain')
      r.get('/zero', () => 0)
      r.get('/null', () => null)
      r.get('/nothing', () => undefined)
      r.get('/async', async () => ({ later: true }))
      r.post('/created', (c) => c.json({ id: 7 }, { status: 201, message: 'Post created', headers: { Location: '/api/posts/7' } }))
      r.get('/message', (c) => c.json({ ok: 1 }, { message: 'Done' }))
      r.get('/raw', () => new Response('<p>hi</p>', { status: 202, headers: { 'content-type': 'text/html' } }))
      r.get('/redirect', () => Response.redirect('http://localhost/api/object', 302))
    }),
  )

  it.each([
    ['/api/object', { id: 1, title: 'Hello' }],
    ['/api/array', [1, 2, 3]],
    ['/api/string', 'plain'],
    ['/api/zero', 0],
    ['/api/null', null],
    ['/api/nothing', null],
    ['/api/async', { later: true }],
  ])('a returned value becomes { success: true, data } (%s)', async (path, data) => {
    const { status, body, headers } = await client.get(path)
    expect(status).toBe(200)
    expect(headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(body).toStrictEqual({ success: true, data })
  })

  it('c.json with status, message and headers', async () => {
    const { status, body, headers } = await client.post('/api/created')
    expect(status).toBe(201)
    expect(body).toStrictEqual({ success: true, message: 'Post created', data: { id: 7 } })
    expect(headers.get('location')).toBe('/api/posts/7')
  })

  it('message comes before data and is omitted when not given', async () => {
    const { response } = await client.get('/api/message')
    expect(await response.text()).toBe('{"success":true,"message":"Done","data":{"ok":1}}')
  })

  it('a returned Response is sent as it is', async () => {
    const { status, body, headers } = await client.get('/api/raw')
    expect(status).toBe(202)
    expect(headers.get('content-type')).toBe('text/html')
    expect(body).toBe('<p>hi</p>')
  })

  it('a Response with immutable headers (Response.redirect) still gets the trace header', async () => {
    const { status, headers } = await client.get('/api/redirect')
    expect(status).toBe(302)
    expect(headers.get('location')).toBe('http://localhost/api/object')
    expect(headers.get('x-service-trace-id')).toMatch(/^svc_[0-9a-f]{32}$/)
  })
})

describe('error envelope', () => {
  const schema = v.object({
    title: v.pipe(v.string('title must be a string'), v.nonEmpty('title is required')),
    author: v.object({ email: v.pipe(v.string(), v.email('author.email must be an email')) }),
  })
  const routes = (r: RouteRegistrar) => {
    r.get('/missing', () => {
      throw new HttpError(404, 'Post not found')
    })
    r.get('/details', () => {
      throw new HttpError(409, 'Slug taken', { details: { slug: 'hello' } })
    })
    r.get('/limited', () => {
      throw new HttpError(429, 'Too Many Requests', { headers: { 'Retry-After': '30' } })
    })
    r.get('/returned-forbidden', (c) => c.json(null, { status: 403 }))
    r.post('/invalid', () => {
      throw new ValidationError({ email: ['email is taken'], password: ['too short', 'needs a digit'] })
    })
    r.post('/validate', async (c) => c.validate(schema))
    r.get('/crash', () => {
      const secret = 'postgres://admin:hunter2@db'
      throw new TypeError(`cannot connect to ${secret}`)
    })
    r.get('/throws-string', () => {
      throw 'a string'
    })
  }
  const client = createTestClient(appWith(routes))

  it('HttpError => { success: false, error, code }', async () => {
    const { status, body } = await client.get('/api/missing')
    expect(status).toBe(404)
    expect(body).toStrictEqual({ success: false, error: 'Post not found', code: 404 })
  })

  it('details are merged into the envelope, headers are sent', async () => {
    expect((await client.get('/api/details')).body).toStrictEqual({ success: false, error: 'Slug taken', code: 409, slug: 'hello' })
    const limited = await client.get('/api/limited')
    expect(limited.status).toBe(429)
    expect(limited.headers.get('retry-after')).toBe('30')
  })

  it('ValidationError => 422 with errors per field', async () => {
    const { status, body } = await client.post('/api/invalid')
    expect(status).toBe(422)
    expect(body).toStrictEqual({
      success: false,
      error: 'The given data was invalid.',
      code: 422,
      errors: { email: ['email is taken'], password: ['too short', 'needs a digit'] },
    })
  })

  it('c.validate with a Standard Schema: 422 keyed by field path', async () => {
    const { status, body } = await client.post('/api/validate', { json: { title: '', author: { email: 'nope' } } })
    expect(status).toBe(422)
    expect(body.errors).toStrictEqual({ title: ['title is required'], 'author.email': ['author.email must be an email'] })
    const valid = await client.post('/api/validate', { json: { title: 'T', author: { email: 'a@b.co' } } })
    expect(valid.status).toBe(200)
    expect(valid.body.data).toStrictEqual({ title: 'T', author: { email: 'a@b.co' } })
  })

  it('an unknown error: 500 without internals when debug is off', async () => {
    for (const path of ['/api/crash', '/api/throws-string']) {
      const { status, response } = await client.get(path)
      const text = await response.text()
      expect(status).toBe(500)
      expect(JSON.parse(text)).toStrictEqual({ success: false, error: 'Internal Server Error', code: 500 })
      expect(text).not.toContain('hunter2')
      expect(text).not.toContain('TypeError')
    }
  })

  it('an unknown error: message and stack when debug is on', async () => {
    const debug = createTestClient(appWith(routes, { APP_DEBUG: 'true' }))
    const { status, body } = await debug.get('/api/crash')
    expect(status).toBe(500)
    expect(body).toMatchObject({ success: false, error: 'Internal Server Error', code: 500 })
    expect(body.exception.class).toBe('TypeError')
    expect(body.exception.message).toBe('cannot connect to postgres://admin:hunter2@db')
    expect(body.exception.stack[0]).toContain('TypeError: cannot connect')
    expect(body.exception.stack.some((line: string) => line.includes('envelope.test.ts'))).toBe(true)
  })

  it('debug is on by default in development and off in production', async () => {
    const crash = (r: RouteRegistrar) =>
      r.get('/crash', () => {
        throw new Error('internal detail')
      })
    const dev = createTestClient(createApp({ config: testConfig({ APP_ENV: 'development', APP_DEBUG: '' }), api: defineRoutes(crash) }))
    const prod = createTestClient(createApp({ config: testConfig({ APP_ENV: 'production', APP_DEBUG: '' }), api: defineRoutes(crash) }))
    expect((await dev.get('/api/crash')).body.exception.message).toBe('internal detail')
    expect((await prod.get('/api/crash')).body.exception).toBeUndefined()
  })

  it('the default 404 and 405 use the same envelope', async () => {
    expect((await client.get('/api/none')).body).toStrictEqual({ success: false, error: 'Not Found', code: 404 })
    expect((await client.request('PUT', '/api/missing')).body).toStrictEqual({ success: false, error: 'Method Not Allowed', code: 405 })
  })
})

describe('the success envelope text (written around JSON.stringify(data), without the envelope object)', () => {
  const date = new Date(0)
  const cases: Array<[string, unknown, string | undefined, Record<string, unknown> | undefined]> = [
    ['an object', { id: 1, title: 'Hello "quoted" \u2028' }, undefined, undefined],
    ['an array', [1, 'two', null], undefined, undefined],
    ['a string', 'plain', undefined, undefined],
    ['zero', 0, undefined, undefined],
    ['null', null, undefined, undefined],
    ['undefined (no data key)', undefined, undefined, undefined],
    ['a function (no data key)', () => 1, undefined, undefined],
    ['a Date (toJSON)', date, undefined, undefined],
    ['nested undefined fields', { a: undefined, b: [undefined] }, undefined, undefined],
    ['with a message', { ok: 1 }, 'Done "now"', undefined],
    ['with meta', [1], undefined, { page: 1, per_page: 15, total: 1, last_page: 1 }],
    ['with a message and meta', [], 'Listed', { page: 2 }],
  ]
  it.each(cases)('%s', (_, data, message, meta) => {
    expect(successEnvelopeText(data, message, meta)).toBe(JSON.stringify(successEnvelope(data, message, meta)))
  })

  it('throws as JSON.stringify does (a BigInt)', () => {
    expect(() => successEnvelopeText({ n: 1n })).toThrow(TypeError)
  })
})
