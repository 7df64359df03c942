import { afterEach, describe, expect, it } from 'vitest'
import { CONN_INFO, defineRoutes, HttpError, TRACE_HEADER, ValidationError, type Middleware } from 'svc'
import { summaryOfRecord } from '../../cli/trace/summary.ts'
import { recordOf, request, tracedApp, type TracedApp } from './helpers.ts'

const stamp: Middleware = async function stamp(c, next) {
  return next()
}

const api = defineRoutes((r) => {
  r.get('/items/{id}', async (c) => {
    const row = await c.db.execute('select ? as id, ? as name', [Number(c.params.id), 'first'])
    return row.rows[0]
  })
    .where('id', /\d+/)
    .middleware(stamp)
  r.post('/items', async (c) => {
    const input = (await c.body()) as { name?: string }
    if (!input.name) throw new ValidationError({ name: ['name is required'] })
    return c.json({ name: input.name }, { status: 201 })
  })
  r.get('/redirect', () => Response.redirect('http://localhost/api/items/1', 302))
  r.get('/boom', function boom() {
    throw new TypeError('kaput')
  })
  r.get('/private', () => {
    throw new HttpError(401, 'Unauthenticated')
  })
  r.get('/late', async (c) => {
    await c.db.execute('select 1 as n')
    // Left running: it reports after the response went out.
    setTimeout(() => void c.db.execute('select 2 as n'), 0)
    return { ok: true }
  })
  r.get('/loop', async (c) => {
    for (let i = 0; i < 6; i++) await c.db.execute(`select ${i} as n where ? = ?`, [i, i])
    await c.db.execute('select 1')
    return { ok: true }
  })
})

let traced: TracedApp | undefined
afterEach(async () => {
  await traced?.close()
  traced = undefined
})

describe('trace capture', () => {
  it('records a 2xx with route, queries, middleware timeline and response', async () => {
    traced = await tracedApp({ api, vars: { APP_DEBUG: 'true' } })
    const sentAt = Date.now()
    const response = await traced.app.fetch(request('GET', '/api/items/7?x=1', { headers: { 'user-agent': 'vitest' } }), { [CONN_INFO]: { remoteAddress: '10.0.0.9' } })
    const answeredAt = Date.now()
    expect(response.status).toBe(200)
    const record = await recordOf(traced, response)
    expect(record).toMatchObject({
      method: 'GET',
      path: '/api/items/7',
      query: 'x=1',
      route: '/api/items/{id}',
      status_code: 200,
      ip: '10.0.0.9',
      user_id: null,
      exception: null,
      trace: null,
      n_plus_one: [],
    })
    expect(record.headers['user-agent']).toBe('vitest')
    expect(record.queries).toHaveLength(1)
    expect(record.queries[0]).toMatchObject({ sql: 'select ? as id, ? as name', args: [7, 'first'], rows: 1, error: null })
    expect(record.queries[0]!.duration_ms).toBeGreaterThanOrEqual(0)
    // The statement's start is an offset in the request: inside it, after the middleware began.
    const [query] = record.queries
    const [middleware] = record.middleware
    expect(record.middleware.map((m) => m.name)).toEqual(['stamp'])
    expect(query!.start_ms).toBeGreaterThanOrEqual(middleware!.start_ms)
    expect(query!.start_ms + query!.duration_ms).toBeLessThanOrEqual(record.duration_ms + 0.002)
    expect(record.duration_ms).toBeGreaterThan(0)
    expect(record.memory_mb).toBeGreaterThan(0)
    // The wall-clock start, to the millisecond (derived from the monotonic clock's reading).
    expect(Date.parse(record.timestamp)).toBeGreaterThanOrEqual(sentAt - 1)
    expect(Date.parse(record.timestamp)).toBeLessThanOrEqual(answeredAt + 1)
    expect(record.response.status).toBe(200)
    expect(record.response.body.content).toEqual({ success: true, data: { id: 7, name: 'first' } })
    expect(record.response.headers['content-type']).toContain('application/json')
  })

  it('records 3xx, 4xx (404, 405, 401, 422), OPTIONS and 5xx', async () => {
    traced = await tracedApp({ api, vars: { APP_DEBUG: 'true' } })
    const cases: Array<[Request, number, Partial<{ route: string | null; exception: string | null }>]> = [
      [request('GET', '/api/redirect'), 302, { route: '/api/redirect', exception: null }],
      [request('GET', '/api/nothing'), 404, { route: null, exception: 'HttpError' }],
      [request('DELETE', '/api/items/1'), 405, { route: null, exception: 'HttpError' }],
      [request('OPTIONS', '/api/items/1'), 204, { route: null, exception: null }],
      [request('GET', '/api/private'), 401, { route: '/api/private', exception: 'HttpError' }],
      [request('POST', '/api/items', { json: { name: '' } }), 422, { route: '/api/items', exception: 'ValidationError' }],
      [request('GET', '/api/boom'), 500, { route: '/api/boom', exception: 'TypeError' }],
    ]
    for (const [req, status, expected] of cases) {
      const response = await traced.app.fetch(req)
      expect(response.status, `${req.method} ${req.url}`).toBe(status)
      const record = await recordOf(traced, response)
      expect(record.status_code).toBe(status)
      expect(record.response.status).toBe(status)
      expect(record.route).toBe(expected.route)
      expect(record.exception?.class ?? null).toBe(expected.exception)
    }
    const validation = (await traced.store.search({ status: '422' }))[0]!
    const record = (await traced.store.get(validation.trace_id))!
    expect(record.exception!.errors).toEqual({ name: ['name is required'] })
    // The list line (trace:list --json) carries them: the editor's row shows "name: name is required", not the 422's "The given data was invalid.".
    expect(summaryOfRecord(record, undefined)).toMatchObject({ exception: 'ValidationError', error_message: 'The given data was invalid.', errors: { name: ['name is required'] } })
    expect(record.body.content).toEqual({ name: '' })
    const boom = (await traced.store.records({ status: '500' }))[0]!
    expect(boom.exception).toMatchObject({ class: 'TypeError', message: 'kaput', status: 500 })
    expect(summaryOfRecord(boom, undefined).errors).toBeNull()
    expect(boom.exception!.location!.file).toContain('capture.test.ts')
    expect(boom.trace!.join('\n')).toContain('kaput')
    expect(await traced.store.count()).toBe(cases.length)
  })

  it('records the statements run until the response, not one a handler left running', async () => {
    traced = await tracedApp({ api })
    const response = await traced.app.fetch(request('GET', '/api/late'))
    await new Promise((resolve) => setTimeout(resolve, 50))
    const record = await recordOf(traced, response)
    expect(record.queries.map((q) => q.sql)).toEqual(['select 1 as n'])
  })

  it('keeps the stack only in debug mode', async () => {
    traced = await tracedApp({ api, vars: { APP_DEBUG: 'false' } })
    const record = await recordOf(traced, await traced.app.fetch(request('GET', '/api/boom')))
    expect(record.exception!.class).toBe('TypeError')
    expect(record.trace).toBeNull()
  })

  it('detects N+1: the same statement shape run N or more times', async () => {
    traced = await tracedApp({ api })
    const record = await recordOf(traced, await traced.app.fetch(request('GET', '/api/loop')))
    expect(record.queries).toHaveLength(7)
    expect(record.n_plus_one).toHaveLength(1)
    expect(record.n_plus_one[0]).toMatchObject({ shape: 'select ? as n where ? = ?', count: 6 })
    expect(record.n_plus_one[0]!.total_ms).toBeGreaterThanOrEqual(0)
    const below = await tracedApp({ api, traceVars: { TRACE_N_PLUS_ONE: '7' } })
    try {
      const other = await recordOf(below, await below.app.fetch(request('GET', '/api/loop')))
      expect(other.n_plus_one).toEqual([])
    } finally {
      await below.close()
    }
  })

  it('records the body of a request the handler did not read, cut at the limit with a marker', async () => {
    traced = await tracedApp({ api, traceVars: { TRACE_BODY_LIMIT: '10' } })
    const response = await traced.app.fetch(request('PUT', '/api/nothing', { body: 'abcdefghijklmnop', headers: { 'content-type': 'text/plain' } }))
    const record = await recordOf(traced, response)
    expect(record.body).toEqual({ content: 'abcdefghij', size: 16, truncated: true, incomplete: false })
  })
})
