/**
 * Routes declare their input: `.body(schema)` and `.query(schema)` are
 * validated after the route's middleware and before its handler (422 with one
 * message per field), `c.body()` / `c.query` answer the validated output, and
 * the route description carries the schema objects. Messages have one style
 * for svc's own routes and the app's, and one function rewords them all.
 */
import * as v from 'valibot'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApp, defineRoutes, HttpError, type Middleware, type RouteRegistrar, type ValidationMessageFormatter } from 'svc'
import { createTestClient } from 'svc/testing'
import { testConfig } from '../helpers/app.ts'
import { createAuthTestApp, type AuthTestApp } from '../auth/helpers.ts'

const PostInput = v.object({
  title: v.pipe(v.string(), v.trim(), v.nonEmpty(), v.maxLength(20)),
  tags: v.optional(v.pipe(v.array(v.string()), v.maxLength(2)), []),
  email: v.optional(v.pipe(v.string(), v.email())),
  published_at: v.optional(v.pipe(v.string(), v.isoTimestamp())),
})
const ListQuery = v.object({
  page: v.optional(v.pipe(v.string(), v.digits(), v.transform(Number), v.minValue(1)), '1'),
  tag: v.optional(v.union([v.string(), v.array(v.string())])),
})

let handlerRuns = 0
const refuse: Middleware = async function refuse(c, next) {
  if (c.headers.get('x-refuse') !== null) throw new HttpError(401, 'Refused by middleware')
  return next()
}

function routes(r: RouteRegistrar) {
  r.post('/posts', async (c) => {
    handlerRuns++
    return { body: await c.body(), raw: c.url.searchParams.get('x') }
  })
    .body(PostInput)
    .middleware(refuse)
  r.get('/posts', (c) => {
    handlerRuns++
    return c.query
  }).query(ListQuery)
  r.post('/both', async (c) => ({ query: c.query, body: await c.body() }))
    .query(ListQuery)
    .body(PostInput)
  r.get('/plain', (c) => ({ page: (c.query as URLSearchParams).get('page') }))
  r.post('/adhoc', async (c) => c.validate(v.object({ n: v.number() })))
  r.get('/described', () => ({ id: 1 })).response(v.object({ id: v.number() }))
}

const app = createApp({ config: testConfig(), api: defineRoutes(routes) })
const client = createTestClient(app)

describe('.body(schema)', () => {
  it('validates before the handler: 422, one message per field, in svc style; the handler never runs', async () => {
    handlerRuns = 0
    const { status, body } = await client.post('/api/posts', {
      json: { title: '   ', tags: ['a', 'b', 'c'], email: 'nope', published_at: 'yesterday' },
    })
    expect(status).toBe(422)
    expect(body).toStrictEqual({
      success: false,
      error: 'The given data was invalid.',
      code: 422,
      errors: {
        title: ['The title field is required.'],
        tags: ['The tags field must not have more than 2 items.'],
        email: ['The email field must be a valid email address.'],
        published_at: ['The published at field must be a valid ISO 8601 timestamp.'],
      },
    })
    expect(handlerRuns).toBe(0)
  })

  it('names the type, the limit, a missing field, and a body that is not an object (not a field named body)', async () => {
    const withBodyField = createApp({ config: testConfig(), api: defineRoutes((r) => r.post('/x', () => null).body(v.object({ body: v.string() }))) })
    expect((await createTestClient(withBodyField).post('/api/x', { json: { body: 5 } })).body.errors).toEqual({ body: ['The body field must be a string.'] })
    expect((await client.post('/api/posts', { json: { title: 7 } })).body.errors).toEqual({ title: ['The title field must be a string.'] })
    expect((await client.post('/api/posts', { json: { title: 'x'.repeat(21) } })).body.errors).toEqual({
      title: ['The title field must not be greater than 20 characters.'],
    })
    expect((await client.post('/api/posts', { json: {} })).body.errors).toEqual({ title: ['The title field is required.'] })
    // Lists too: valibot's own `object` takes one as an object whose keys are missing (a 422 per field).
    for (const json of [null, 'text', 3, [], [1, 2]]) {
      expect((await client.post('/api/posts', { json })).body.errors, JSON.stringify(json)).toEqual({ body: ['The request body must be a JSON object.'] })
    }
    // `null` is "required" where the field must be given; an optional one may be left out, so `null` is its wrong type.
    expect((await client.post('/api/posts', { json: { title: null, email: null, tags: null } })).body.errors).toEqual({
      title: ['The title field is required.'],
      tags: ['The tags field must be a list.'],
      email: ['The email field must be a string.'],
    })
    // An item of a list is named by its list and position ("The 0 field" named nothing), a nested one too.
    expect((await client.post('/api/posts', { json: { title: 'x', tags: ['a', 7] } })).body.errors).toEqual({ 'tags.1': ['The tags.1 field must be a string.'] })
    const matrix = createApp({ config: testConfig(), api: defineRoutes((r) => r.post('/x', () => null).body(v.object({ cell_rows: v.array(v.array(v.number())) }))) })
    expect((await createTestClient(matrix).post('/api/x', { json: { cell_rows: [[1], [2, 'x']] } })).body.errors).toEqual({
      'cell_rows.1.1': ['The cell rows.1.1 field must be a number.'],
    })
    const strict = createApp({ config: testConfig(), api: defineRoutes((r) => r.post('/x', () => null).body(v.strictObject({ a: v.optional(v.string()) }))) })
    expect((await createTestClient(strict).post('/api/x', { json: [] })).body.errors).toEqual({ body: ['The request body must be a JSON object.'] })
    // A key the strict schema does not list is not allowed (it read "must be an object").
    expect((await createTestClient(strict).post('/api/x', { json: { b: 1 } })).body.errors).toEqual({ b: ['The b field is not allowed.'] })
  })

  it('refuses a list where the schema has an object or a record, at any depth, instead of reading it as one', async () => {
    const Order = v.object({
      customer: v.object({ name: v.string(), address: v.optional(v.object({ city: v.optional(v.string()) })) }),
      settings: v.optional(v.object({ vip: v.optional(v.boolean()) })),
      labels: v.optional(v.record(v.string(), v.string())),
      lines: v.optional(v.array(v.object({ sku: v.string() }))),
      note: v.optional(v.string()),
    })
    let seen: unknown
    const orders = createTestClient(createApp({ config: testConfig(), api: defineRoutes((r) => r.post('/orders', async (c) => (seen = await c.body())).body(Order)) }))
    const post = async (json: unknown) => (await orders.post('/api/orders', { json })).body
    // A list of an all-optional object used to pass as `{}`, and a record's as `{ "0": ... }`: lost without a word.
    expect((await post({ customer: { name: 'Ann' }, settings: [] })).errors).toEqual({ settings: ['The settings field must be an object.'] })
    expect((await post({ customer: { name: 'Ann' }, labels: ['a'] })).errors).toEqual({ labels: ['The labels field must be an object.'] })
    // One message for the list, not "required" for each field it lacks; other fields keep theirs.
    expect((await post({ customer: [], note: 5 })).errors).toEqual({ customer: ['The customer field must be an object.'], note: ['The note field must be a string.'] })
    expect((await post({ customer: { name: 'Ann', address: [[]] } })).errors).toEqual({ 'customer.address': ['The address field must be an object.'] })
    expect((await post({ customer: { name: 'Ann' }, lines: [{ sku: 'a' }, [], { sku: 1 }] })).errors).toEqual({
      'lines.1': ['The lines.1 field must be an object.'],
      'lines.2.sku': ['The sku field must be a string.'],
    })
    // An intersection of objects (as `paginationQuery` is one), each of which would take the list.
    const Both = v.intersect([v.object({ a: v.optional(v.string()) }), v.object({ b: v.optional(v.object({ c: v.optional(v.number()) })) })])
    const both = createTestClient(createApp({ config: testConfig(), api: defineRoutes((r) => r.post('/both', (c) => c.body()).body(Both)) }))
    expect((await both.post('/api/both', { json: [] })).body.errors).toEqual({ body: ['The request body must be a JSON object.'] })
    expect((await both.post('/api/both', { json: { b: [] } })).body.errors).toEqual({ b: ['The b field must be an object.'] })
    // Thousands of them answer as quickly as thousands of any other error.
    const many = await post({ customer: { name: 'Ann' }, lines: Array.from({ length: 10_000 }, () => []) })
    expect(Object.keys(many.errors)).toHaveLength(10_000)
    seen = undefined
    expect((await orders.post('/api/orders', { json: { customer: { name: 'Ann', address: {} }, settings: {}, labels: { a: 'b' } } })).status).toBe(200)
    expect(seen).toEqual({ customer: { name: 'Ann', address: {} }, settings: {}, labels: { a: 'b' } })
  })

  it("hands the handler the schema's output (trimmed, defaults filled)", async () => {
    const { status, body } = await client.post('/api/posts?x=1', { json: { title: '  Hello  ', extra: 'dropped' } })
    expect(status).toBe(200)
    expect(body.data).toStrictEqual({ body: { title: 'Hello', tags: [] }, raw: '1' })
  })

  it("runs after the route's middleware: a refused request is 401, not 422", async () => {
    const { status, body } = await client.post('/api/posts', { json: {}, headers: { 'x-refuse': '1' } })
    expect(status).toBe(401)
    expect(body.error).toBe('Refused by middleware')
  })

  it('keeps the body rules of the framework: malformed JSON 400, another type 415', async () => {
    expect((await client.post('/api/posts', { body: '{"title":', headers: { 'content-type': 'application/json' } })).status).toBe(400)
    expect((await client.post('/api/posts', { body: 'title=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } })).status).toBe(415)
  })

  it('refuses a value that is not a Standard Schema when the route is defined', () => {
    expect(() => defineRoutes((r) => r.post('/x', () => null).body({} as never))).toThrow(/\.body\(\) takes a Standard Schema/)
  })
})

describe('.query(schema)', () => {
  it('gives the handler the validated object: a key given twice is a list', async () => {
    const { status, body } = await client.get('/api/posts?page=3&tag=a&tag=b')
    expect(status).toBe(200)
    expect(body.data).toStrictEqual({ page: 3, tag: ['a', 'b'] })
    expect((await client.get('/api/posts')).body.data).toStrictEqual({ page: 1 })
  })

  it('answers 422 naming the query field', async () => {
    handlerRuns = 0
    const { status, body } = await client.get('/api/posts?page=zero')
    expect(status).toBe(422)
    expect(body.errors).toEqual({ page: ['The page field must contain only digits.'] })
    expect((await client.get('/api/posts?page=0')).body.errors).toEqual({ page: ['The page field must be at least 1.'] })
    expect(handlerRuns).toBe(0)
  })

  it('reads `__proto__` in a query string as a plain field', async () => {
    const { status, body } = await client.get('/api/posts?__proto__=x&__proto__=y&page=2')
    expect(status).toBe(200)
    expect(body.data).toStrictEqual({ page: 2 })
    expect(({} as Record<string, unknown>).x).toBeUndefined()
  })

  it('checks the query and the body together: one 422 lists both', async () => {
    const { status, body } = await client.post('/api/both?page=0', { json: {} })
    expect(status).toBe(422)
    expect(body.errors).toEqual({ page: ['The page field must be at least 1.'], title: ['The title field is required.'] })
    const ok = await client.post('/api/both?page=2', { json: { title: 'T' } })
    expect(ok.body.data).toStrictEqual({ query: { page: 2 }, body: { title: 'T', tags: [] } })
  })

  it('keeps both messages of a name that failed in the query and in the body, the query first', async () => {
    const app = createApp({
      config: testConfig(),
      api: defineRoutes((r) => {
        r.post('/orders', () => ({ ok: true }))
          .query(v.object({ page: v.pipe(v.string(), v.digits()) }))
          .body(v.object({ page: v.number(), note: v.string() }))
      }),
    })
    const { status, body } = await createTestClient(app).post('/api/orders?page=x', { json: { page: 'y', note: 1 } })
    expect(status).toBe(422)
    expect(body.errors).toEqual({
      page: ['The page field must contain only digits.', 'The page field must be a number.'],
      note: ['The note field must be a string.'],
    })
  })

  it('refuses a field named like a property of every object (constructor, toString, __proto__): its error is kept and the handler never runs', async () => {
    let runs = 0
    const handler = () => ++runs
    const odd = createApp({
      config: testConfig(),
      api: defineRoutes((r) => {
        r.post('/named', handler).body(v.object({ constructor: v.string(), toString: v.optional(v.number()) }))
        r.post('/strict', handler).body(v.strictObject({ title: v.optional(v.string()) }))
        r.post('/counts', handler).body(v.record(v.string(), v.number()))
        r.get('/query', handler).query(v.object({ constructor: v.string() }))
        r.post('/adhoc', (c) => c.validate(v.object({ valueOf: v.string() })))
      }),
    })
    const oddClient = createTestClient(odd)
    const send = (path: string, body: string) => oddClient.post(path, { body, headers: { 'content-type': 'application/json' } })
    // A missing one is missing, not the function every object inherits (valibot reads `input[key]`): "required".
    const cases: Array<[Promise<{ status: number; body: any }>, Record<string, string[]>]> = [
      [send('/api/named', '{"constructor":5,"toString":1}'), { constructor: ['The constructor field must be a string.'] }],
      [send('/api/named', '{"constructor":"x","toString":"y"}'), { toString: ['The toString field must be a number.'] }],
      [send('/api/strict', '{"__proto__":1}'), { ['__proto__']: ['The   proto   field is not allowed.'] }],
      [send('/api/counts', '{"hasOwnProperty":"x"}'), { hasOwnProperty: ['The hasOwnProperty field must be a number.'] }],
      [oddClient.get('/api/query'), { constructor: ['The constructor field is required.'] }],
      [send('/api/adhoc', '{}'), { valueOf: ['The valueOf field is required.'] }],
      [send('/api/named', '{}'), { constructor: ['The constructor field is required.'] }],
    ]
    for (const [answer, errors] of cases) {
      const { status, body } = await answer
      expect(status, JSON.stringify(errors)).toBe(422)
      // As text: the equality of objects does not see an own `__proto__` key.
      expect(JSON.stringify(body.errors)).toBe(JSON.stringify(errors))
    }
    expect(runs).toBe(0)
  })

  it('takes a body that leaves out an optional field named like a property of every object, nested too', async () => {
    const odd = createApp({
      config: testConfig(),
      api: defineRoutes((r) => {
        const Item = v.strictObject({ name: v.string(), toString: v.optional(v.string()) })
        r.post('/items', (c) => c.body()).body(v.object({ constructor: v.optional(v.string()), items: v.array(Item), owner: v.nullable(Item) }))
      }),
    })
    const answer = await createTestClient(odd).post('/api/items', {
      body: '{"items":[{"name":"a"},{"name":"b","toString":"c"}],"owner":{"name":"d"}}',
      headers: { 'content-type': 'application/json' },
    })
    expect(answer.status).toBe(200)
    expect(answer.body.data as unknown).toStrictEqual<unknown>({ items: [{ name: 'a' }, { name: 'b', toString: 'c' }], owner: { name: 'd' } })
    expect(Object.getPrototypeOf(answer.body.data.items[0])).toBe(Object.prototype)
  })

  it('leaves c.query a URLSearchParams on routes without a query schema', async () => {
    expect((await client.get('/api/plain?page=9')).body.data).toStrictEqual({ page: '9' })
  })
})

describe('the route description', () => {
  it('carries the schema objects themselves, null where none is declared', () => {
    const described = app.routes()
    const post = described.find((route) => route.method === 'POST' && route.path === '/api/posts')!
    expect(post.schemas.body).toBe(PostInput)
    expect(post.schemas.query).toBeNull()
    expect(described.find((route) => route.path === '/api/posts' && route.method === 'GET')!.schemas.query).toBe(ListQuery)
    const response = described.find((route) => route.path === '/api/described')!.schemas.response
    expect(response?.['~standard'].vendor).toBe('valibot')
    expect(described.find((route) => route.path === '/api/plain')!.schemas).toEqual({ body: null, query: null, response: null })
  })
})

describe('one message style, and one function to reword it', () => {
  it('keeps a message the schema author wrote', async () => {
    const custom = createApp({
      config: testConfig(),
      api: defineRoutes((r) => r.post('/x', () => null).body(v.object({ code: v.pipe(v.string('Send the code as text'), v.length(4, 'Codes have four digits')) }))),
    })
    const { body } = await createTestClient(custom).post('/api/x', { json: { code: 12 } })
    expect(body.errors).toEqual({ code: ['Send the code as text'] })
    expect((await createTestClient(custom).post('/api/x', { json: { code: '12' } })).body.errors).toEqual({ code: ['Codes have four digits'] })
  })

  it('asks an integer field for an integer when it was given no number at all (the integer action never ran), nested and optional too', async () => {
    const Counts = v.object({
      stock: v.pipe(v.number(), v.integer()),
      shelf: v.optional(v.pipe(v.number(), v.integer())),
      price: v.number(),
      lines: v.array(v.object({ quantity: v.pipe(v.number(), v.integer()) })),
    })
    const counts = createTestClient(createApp({ config: testConfig(), api: defineRoutes((r) => r.post('/counts', () => null).body(Counts)) }))
    const { status, body } = await counts.post('/api/counts', { json: { stock: 'a', shelf: 'b', price: 'd', lines: [{ quantity: 'e' }] } })
    expect(status).toBe(422)
    expect(body.errors).toEqual({
      stock: ['The stock field must be an integer.'],
      shelf: ['The shelf field must be an integer.'],
      price: ['The price field must be a number.'],
      'lines.0.quantity': ['The quantity field must be an integer.'],
    })
    // A number that is not whole reached the integer action: the same words.
    expect((await counts.post('/api/counts', { json: { stock: 1.5, price: 1, lines: [] } })).body.errors).toEqual({ stock: ['The stock field must be an integer.'] })
  })

  const shout: ValidationMessageFormatter = (issue) => `${issue.source}:${issue.field}:${issue.rule}:${String(issue.requirement ?? '')}`

  it("rewords the app's routes and c.validate() through createApp({ validationMessage })", async () => {
    const reworded = createTestClient(createApp({ config: testConfig(), api: defineRoutes(routes), validationMessage: shout }))
    expect((await reworded.post('/api/posts', { json: { title: 'x'.repeat(30) } })).body.errors).toEqual({ title: ['body:title:max_length:20'] })
    expect((await reworded.get('/api/posts?page=0')).body.errors).toEqual({ page: ['query:page:min_value:1'] })
    expect((await reworded.post('/api/adhoc', { json: { n: 'one' } })).body.errors).toEqual({ n: ['body:n:type:number'] })
  })

  describe("svc's auth routes", () => {
    let auth: AuthTestApp
    beforeAll(async () => {
      auth = await createAuthTestApp({ kernel: { validationMessage: shout } })
    })
    afterAll(() => auth.close())

    it('use the same function: their messages are reworded too', async () => {
      const { status, body } = await auth.client.post('/api/auth/register', {
        json: { name: '', email: 'not-an-email', password: 'short', password_confirmation: 'other' },
      })
      expect(status).toBe(422)
      expect(body.errors).toEqual({
        name: ['body:name:required:'],
        email: ['body:email:email:/^[^\\s@]+@[^\\s@.]+(\\.[^\\s@.]+)+$/'],
        password: ['body:password:min_length:8'],
        password_confirmation: ['body:password_confirmation:confirmed:'],
      })
      const mismatch = await auth.client.post('/api/auth/register', {
        json: { name: 'N', email: 'n@example.com', password: 'long enough', password_confirmation: 'long enougH' },
      })
      expect(mismatch.body.errors).toEqual({ password_confirmation: ['body:password_confirmation:confirmed:'] })
    })

    it('and so are the failures found after the schema: an address taken, a spent or unknown token (they were fixed English)', async () => {
      const account = { name: 'N', email: 'taken@example.com', password: 'long enough', password_confirmation: 'long enough' }
      expect((await auth.client.post('/api/auth/register', { json: account })).status).toBe(201)
      expect((await auth.client.post('/api/auth/register', { json: account })).body.errors).toEqual({ email: ['body:email:unique:'] })
      expect((await auth.client.post('/api/auth/verify-email', { json: { token: 'x'.repeat(43) } })).body.errors).toEqual({ token: ['body:token:verification_token:'] })
      const reset = { token: 'x'.repeat(43), password: 'long enough', password_confirmation: 'long enough' }
      expect((await auth.client.post('/api/auth/reset-password', { json: reset })).body.errors).toEqual({ token: ['body:token:reset_token:'] })
    })
  })

  it('the auth routes declare their bodies (route description), so tools see them', async () => {
    const auth = await createAuthTestApp()
    try {
      const described = auth.app.routes().filter((route) => route.path.startsWith('/api/auth/'))
      const declared = Object.fromEntries(described.map((route) => [route.path, route.schemas.body !== null]))
      expect(declared).toEqual({
        '/api/auth/register': true,
        '/api/auth/login': true,
        '/api/auth/refresh': true,
        '/api/auth/logout': false,
        '/api/auth/me': false,
        '/api/auth/verify-email': true,
        '/api/auth/verify-email/resend': false,
        '/api/auth/forgot-password': true,
        '/api/auth/reset-password': true,
      })
    } finally {
      await auth.close()
    }
  })
})

describe("svc's text rules", () => {
  it('count characters as people do (code points), as JSON Schema does, not UTF-16 units', async () => {
    const { maxChars, minChars } = await import('../../framework/validation/rules.ts')
    const { checkWith } = await import('../../framework/validation/validate.ts')
    const password = v.object({ password: v.pipe(v.string(), minChars(8), maxChars(10)) })
    expect(await checkWith(password, { password: '🔑'.repeat(10) })).toMatchObject({ ok: true }) // 20 UTF-16 units
    expect(await checkWith(password, { password: '🔑'.repeat(11) })).toEqual({ ok: false, errors: { password: ['The password field must not be greater than 10 characters.'] } })
    expect(await checkWith(password, { password: '🔑'.repeat(7) })).toEqual({ ok: false, errors: { password: ['The password field must be at least 8 characters.'] } })
  })
})
