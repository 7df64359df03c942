/**
 * The API description built from a route table (cli/openapi/document.ts):
 * paths, parameters, every known error, security, shared schemas and their
 * references, warnings, determinism. Apps here are built in-process with
 * createApp and svc's auth plugin (no database: the table is all it needs).
 */
import type { StandardSchemaV1 } from '@standard-schema/spec'
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { authPlugin, createApp, defineRoutes, resolveConfig, RouteDefinitionError, type RouteDefinition } from '../../framework/index.ts'
import { buildOpenApi, type JsonObject, type OpenApiBuild } from '../../cli/openapi/document.ts'
import { schemaNames } from '../../cli/openapi/schema-names.ts'
import { stableStringify } from '../../cli/openapi/stable-json.ts'
import { validateWithParsers, walkObjects } from '../helpers/openapi.ts'

const Tag = v.object({ name: v.string() })
const Author = v.object({ id: v.pipe(v.number(), v.integer()), name: v.string() })
const Book = v.object({ id: v.number(), title: v.string(), author: Author, editor: v.nullable(Author), tags: v.array(Tag) })
const BookInput = v.object({ title: v.pipe(v.string(), v.trim(), v.nonEmpty(), v.maxLength(100)), author_id: v.number() })
const Filter = v.object({ q: v.optional(v.string()), page: v.optional(v.pipe(v.string(), v.digits())) })

function describeApp(api: RouteDefinition, names: Record<string, StandardSchemaV1> = {}, env: Record<string, string> = {}): OpenApiBuild {
  const app = createApp({ config: resolveConfig({ APP_ENV: 'test', ...env }), api, plugins: [authPlugin()] })
  const named = new Map([...schemaNames('/nonexistent-app'), ...Object.entries(names).map(([name, schema]) => [schema, name] as const)])
  return buildOpenApi(app.routes(), named, { title: 'test', version: '1.0.0' })
}

const operation = (build: OpenApiBuild, method: string, path: string) => {
  const item = (build.document.paths as Record<string, Record<string, JsonObject>>)[path]
  if (item?.[method] === undefined) throw new Error(`no ${method} ${path} in ${Object.keys(build.document.paths as object).join(', ')}`)
  return item[method]!
}
const statuses = (op: JsonObject) => Object.keys(op.responses as object).map(Number)

const books = defineRoutes((r) => {
  r.version(1, (r) => {
    r.get('/books', function listBooks() {}).query(Filter).response(v.array(Book))
    r.get('/books/archive/{year?}/{month?}', function archive() {}).where({ year: /\d{4}/, month: /\d{2}/ })
    r.get('/books/{id}', function showBook() {}).where('id', /\d+/).response(Book).errors({ 404: 'No book has this id' })
    r.post('/books', function createBook() {}).body(BookInput).response(Book, { status: 201 }).middleware('auth', 'throttle:5,1')
    r.put('/books/{id}', function updateBook() {}).where('id', /\d+/).body(BookInput).response(Book).middleware('auth:admin,editor')
    r.delete('/books/{id}', function deleteBook() {}).where('id', /\d+/).response(null, { status: 204 }).middleware('auth:admin')
  })
  r.group({ prefix: 'webhooks' }, (r) => {
    r.post('/billing', function billingWebhook() {}).middleware('apikey:billing:write')
  })
  r.any('/echo', function echo() {})
})

describe('paths and parameters', () => {
  const build = describeApp(books, { Book, BookInput, Author, Tag })

  it('an optional parameter gives a path without it and one with it (two optional: three paths), as OpenAPI has no optional path parameter', () => {
    const paths = Object.keys(build.document.paths as object)
    expect(paths).toEqual(expect.arrayContaining(['/api/v1/books/archive', '/api/v1/books/archive/{year}', '/api/v1/books/archive/{year}/{month}']))
    expect(operation(build, 'get', '/api/v1/books/archive').parameters).toBeUndefined()
    expect((operation(build, 'get', '/api/v1/books/archive/{year}/{month}').parameters as JsonObject[]).map((param) => param.name)).toEqual(['year', 'month'])
  })

  it('a constraint is the parameter pattern, anchored as the router tests it', () => {
    const [year] = operation(build, 'get', '/api/v1/books/archive/{year}').parameters as JsonObject[]
    expect(year).toEqual({ name: 'year', in: 'path', required: true, schema: { type: 'string', pattern: '^(?:\\d{4})$' } })
    expect(new RegExp((year!.schema as { pattern: string }).pattern).test('2024')).toBe(true)
    expect(new RegExp((year!.schema as { pattern: string }).pattern).test('20245')).toBe(false)
  })

  it("a query schema's fields are query parameters", () => {
    expect(operation(build, 'get', '/api/v1/books').parameters).toEqual([
      { name: 'page', in: 'query', required: false, schema: { type: 'string', pattern: '^\\d+$' } },
      { name: 'q', in: 'query', required: false, schema: { type: 'string' } },
    ])
  })

  it('a route for any method is five operations; operationIds come from method and path, unique', () => {
    expect(Object.keys((build.document.paths as Record<string, object>)['/api/echo']!)).toEqual(['get', 'post', 'put', 'patch', 'delete'])
    expect(operation(build, 'get', '/api/v1/books/{id}').operationId).toBe('getApiV1BooksById')
    expect(operation(build, 'get', '/api/v1/books/archive/{year}/{month}').operationId).toBe('getApiV1BooksArchiveByYearByMonth')
    const ids = [...walkObjects(build.document.paths)].flatMap(([, object]) => (typeof object.operationId === 'string' ? [object.operationId] : []))
    expect(new Set(ids).size).toBe(ids.length)
  })

  it('operationIds are stable: adding a route renames no other operation', () => {
    const more = defineRoutes((r) => {
      r.get('/a', function first() {})
      r.get('/b', function second() {})
    })
    const fewer = defineRoutes((r) => {
      r.get('/b', function second() {})
    })
    expect(operation(describeApp(more), 'get', '/api/b').operationId).toBe(operation(describeApp(fewer), 'get', '/api/b').operationId)
  })

  it('tags follow the group or version; the auth routes are in auth, the probes in health, each auth page in its own', () => {
    expect(operation(build, 'get', '/api/v1/books').tags).toEqual(['v1'])
    expect(operation(build, 'post', '/api/webhooks/billing').tags).toEqual(['webhooks'])
    expect(operation(build, 'post', '/api/auth/login').tags).toEqual(['auth'])
    expect(operation(build, 'get', '/health/ready').tags).toEqual(['health'])
    expect(operation(build, 'get', '/verify-email').tags).toEqual(['verify-email'])
    expect((build.document.tags as JsonObject[]).map((tag) => tag.name)).toEqual(['auth', 'echo', 'health', 'reset-password', 'v1', 'verify-email', 'webhooks'])
    for (const tag of build.document.tags as JsonObject[]) expect(tag.description).toEqual(expect.any(String))
  })

  it('an auth page served at a path of its own (AUTH_VERIFY_EMAIL_URL) keeps its tag and description, not its first segment\'s', () => {
    const env = { APP_URL: 'https://example.com', AUTH_VERIFY_EMAIL_URL: 'https://example.com/account/verify?token={token}', AUTH_RESET_PASSWORD_URL: 'https://example.com/account/password?token={token}' }
    const custom = describeApp(books, {}, env)
    const byDefault = describeApp(books)
    expect(operation(custom, 'get', '/account/verify').tags).toEqual(['verify-email'])
    expect(operation(custom, 'get', '/account/password').tags).toEqual(['reset-password'])
    const tagsOf = (build: OpenApiBuild) => build.document.tags as JsonObject[]
    expect(tagsOf(custom)).toEqual(tagsOf(byDefault))
    expect(tagsOf(custom).map((tag) => tag.name)).not.toContain('account')
  })
})

describe('responses', () => {
  const build = describeApp(books, { Book, BookInput, Author, Tag })

  it('the success status and body are the declared ones: the envelope around data, 201 when declared, no body for a 204', () => {
    expect(statuses(operation(build, 'get', '/api/v1/books/{id}'))).toContain(200)
    const created = (operation(build, 'post', '/api/v1/books').responses as Record<string, JsonObject>)['201']!
    expect(created.content).toEqual({
      'application/json': {
        schema: {
          type: 'object',
          required: ['success', 'data'],
          properties: {
            success: { type: 'boolean', enum: [true] },
            message: { type: 'string' },
            data: { $ref: '#/components/schemas/Book' },
            meta: expect.objectContaining({ type: 'object' }),
          },
        },
      },
    })
    const deleted = (operation(build, 'delete', '/api/v1/books/{id}').responses as Record<string, JsonObject>)['204']!
    expect(deleted.content).toBeUndefined()
    expect(statuses(operation(build, 'delete', '/api/v1/books/{id}'))).not.toContain(200)
  })

  it('every error the route can give: 401/403 where auth and roles are, 400/413/415/422 where a body is read, 429 with a throttle, 404 for a constraint, 503 (maintenance, a busy database) but on the liveness probe, the handler’s declared ones; never 405', () => {
    expect(statuses(operation(build, 'post', '/api/v1/books'))).toEqual([201, 400, 401, 403, 413, 415, 422, 429, 500, 503])
    expect(statuses(operation(build, 'put', '/api/v1/books/{id}'))).toEqual([200, 400, 401, 403, 404, 413, 415, 422, 500, 503])
    expect(statuses(operation(build, 'get', '/api/v1/books'))).toEqual([200, 422, 500, 503])
    expect(statuses(operation(build, 'get', '/api/v1/books/archive'))).toEqual([200, 500, 503])
    expect(statuses(operation(build, 'get', '/api/v1/books/archive/{year}'))).toEqual([200, 404, 500, 503])
    const responses = operation(build, 'put', '/api/v1/books/{id}').responses as Record<string, JsonObject>
    expect(responses['403']!.description).toContain('role is not admin or editor')
    expect(responses['404']!.description).toContain('\\d+')
    expect((operation(build, 'get', '/api/v1/books/{id}').responses as Record<string, JsonObject>)['404']!.description).toContain('No book has this id.')
    expect(responses['422']!.content).toEqual({ 'application/json': { schema: { $ref: '#/components/schemas/ValidationErrorResponse' } } })
    expect(Object.keys(responses['401']!.headers as object)).toEqual(['X-Service-Trace-Id', 'WWW-Authenticate'])
    const throttled = operation(build, 'post', '/api/v1/books').responses as Record<string, JsonObject>
    expect(Object.keys(throttled['429']!.headers as object)).toEqual(['X-Service-Trace-Id', 'Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'])
    expect(throttled['429']!.description).toContain('More than 5 requests in 1 minute')
    expect(throttled['503']!.description).toContain('down for maintenance')
    expect(Object.keys(throttled['503']!.headers as object)).toEqual(['X-Service-Trace-Id', 'Retry-After'])
    expect(statuses(operation(build, 'get', '/health/live'))).toEqual([200, 500])
    const login = (operation(build, 'post', '/api/auth/login').responses as Record<string, JsonObject>)['503']!.description
    expect(login).toContain('down for maintenance')
    expect(login).toContain('every password-hashing slot taken')
  })

  it('a declared 423 or 503 lists Retry-After, as the login lock, a busy service and maintenance send it; other declared errors do not', () => {
    const headersOf = (method: string, path: string, status: number) =>
      Object.keys(((operation(build, method, path).responses as Record<string, JsonObject>)[String(status)]!.headers ?? {}) as object)
    expect(headersOf('post', '/api/auth/login', 423)).toEqual(['X-Service-Trace-Id', 'Retry-After'])
    expect(headersOf('post', '/api/auth/login', 503)).toEqual(['X-Service-Trace-Id', 'Retry-After'])
    expect(headersOf('post', '/api/auth/register', 503)).toEqual(['X-Service-Trace-Id', 'Retry-After'])
    expect(headersOf('post', '/api/auth/reset-password', 503)).toEqual(['X-Service-Trace-Id', 'Retry-After'])
    expect(headersOf('get', '/health/ready', 503)).toEqual(['X-Service-Trace-Id', 'Retry-After'])
    expect(headersOf('post', '/api/auth/login', 401)).toEqual(['X-Service-Trace-Id'])
    expect(headersOf('get', '/api/v1/books/{id}', 404)).toEqual(['X-Service-Trace-Id'])
    const declared = describeApp(defineRoutes((r) => {
      r.post('/jobs', function queueJob() {}).errors({ 429: 'Too many jobs queued', 503: 'The queue is full' })
    }))
    const responses = operation(declared, 'post', '/api/jobs').responses as Record<string, JsonObject>
    expect(Object.keys(responses['429']!.headers as object)).toEqual(['X-Service-Trace-Id', 'Retry-After'])
    expect(Object.keys(responses['503']!.headers as object)).toEqual(['X-Service-Trace-Id', 'Retry-After'])
  })

  it('a route behind idempotent lists Idempotent-Replayed on its success (a replay carries it), not on its errors', () => {
    const build = describeApp(defineRoutes((r) => {
      r.post('/orders', function createOrder() {}).middleware('auth', 'idempotent').response(null, { status: 204 })
      r.post('/notes', function createNote() {}).middleware('auth')
    }))
    const responses = operation(build, 'post', '/api/orders').responses as Record<string, JsonObject>
    expect(Object.keys(responses['204']!.headers as object)).toEqual(['X-Service-Trace-Id', 'Idempotent-Replayed'])
    expect(Object.keys(responses['409']!.headers as object)).not.toContain('Idempotent-Replayed')
    expect(Object.keys(((operation(build, 'post', '/api/notes').responses as Record<string, JsonObject>)['200']!.headers) as object)).toEqual(['X-Service-Trace-Id'])
    expect((build.document.components as { headers: Record<string, JsonObject> }).headers['Idempotent-Replayed']).toMatchObject({ schema: { type: 'string', enum: ['true'] } })
  })

  it('every response, everywhere, has a description', () => {
    for (const [pointer, object] of walkObjects(build.document.paths)) {
      if (/\/responses\/\d{3}$/.test(pointer)) expect(object.description, pointer).toEqual(expect.stringMatching(/\S/))
    }
  })

  it("svc's auth routes: their bodies, the token pair and the user are documented, with their own errors", () => {
    const login = operation(build, 'post', '/api/auth/login')
    expect(login.requestBody).toEqual({ required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/LoginBody' } } } })
    const responses = login.responses as Record<string, JsonObject>
    expect(statuses(login)).toEqual([200, 400, 401, 403, 413, 415, 422, 423, 429, 500, 503])
    expect(responses['401']!.description).toContain('Invalid credentials')
    const schemas = (build.document.components as { schemas: Record<string, JsonObject> }).schemas
    expect(schemas.TokenPairWithUser).toMatchObject({
      properties: { token: { type: 'string' }, refresh_token: { type: 'string' }, token_type: { enum: ['Bearer'] }, expires_in: { type: 'integer' }, user: { $ref: '#/components/schemas/User' } },
    })
    expect(schemas.User).toMatchObject({ properties: { id: { type: 'integer' }, name: { type: 'string' }, email: { type: 'string' } }, required: ['id', 'name', 'email'] })
    expect(schemas.CurrentUser).toMatchObject({ properties: { role: { type: 'string' } } })
    expect(schemas.RegisterBody).toMatchObject({ required: ['name', 'email', 'password', 'password_confirmation'], 'x-rules': ['confirmed'] })
    expect((operation(build, 'post', '/api/auth/register').responses as Record<string, JsonObject>)['201']).toBeDefined()
    expect(operation(build, 'get', '/api/auth/me')).toMatchObject({ security: [{ bearerAuth: [] }] })
  })

  it('a route answering its schema without the envelope (the JWKS) documents the schema as the whole body', () => {
    const rs256 = describeApp(defineRoutes(() => {}), {}, { JWT_ALGORITHM: 'RS256' })
    const jwks = (operation(rs256, 'get', '/.well-known/jwks.json').responses as Record<string, JsonObject>)['200']!
    expect((jwks.content as Record<string, { schema: JsonObject }>)['application/json']!.schema).toMatchObject({ type: 'object', properties: { keys: { type: 'array' } } })
  })
})

describe('security', () => {
  const build = describeApp(books, { Book, BookInput }, { API_KEY: 'k'.repeat(32) })

  it('bearerAuth is http bearer JWT; requirements have empty scope lists (3.0.3); roles are in x-roles and the description', () => {
    const schemes = (build.document.components as { securitySchemes: Record<string, JsonObject> }).securitySchemes
    expect(schemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' })
    const update = operation(build, 'put', '/api/v1/books/{id}')
    expect(update.security).toEqual([{ bearerAuth: [] }])
    expect(update['x-roles']).toEqual(['admin', 'editor'])
    expect(update.description).toContain('`admin` or `editor`')
    expect(operation(build, 'get', '/api/v1/books').security).toBeUndefined()
    for (const [, object] of walkObjects(build.document.paths)) {
      if (Array.isArray(object.security)) for (const requirement of object.security as JsonObject[]) for (const scopes of Object.values(requirement)) expect(scopes).toEqual([])
    }
  })

  it('the API-key scheme exists where the apikey alias is used, with its scopes in x-scopes', () => {
    const schemes = (build.document.components as { securitySchemes: Record<string, JsonObject> }).securitySchemes
    expect(schemes.apiKeyAuth).toEqual(expect.objectContaining({ type: 'apiKey', in: 'header', name: 'x-api-key' }))
    const webhook = operation(build, 'post', '/api/webhooks/billing')
    expect(webhook).toMatchObject({ security: [{ apiKeyAuth: [] }], 'x-scopes': ['billing:write'] })
    expect(statuses(webhook)).toEqual([200, 401, 403, 500, 503])
    const without = describeApp(defineRoutes((r) => r.get('/x', function x() {})))
    expect((without.document.components as { securitySchemes: object }).securitySchemes).not.toHaveProperty('apiKeyAuth')
  })
})

describe('schemas and references', () => {
  it('named schemas are components, referenced wherever used; a nullable reference is wrapped in allOf; no $ref has a sibling; every $ref resolves', () => {
    const build = describeApp(books, { Book, BookInput, Author, Tag })
    const schemas = (build.document.components as { schemas: Record<string, JsonObject> }).schemas
    expect(Object.keys(schemas)).toEqual(expect.arrayContaining(['Book', 'BookInput', 'Author', 'Tag', 'ErrorResponse', 'ValidationErrorResponse']))
    expect(schemas.Book).toMatchObject({
      properties: { author: { $ref: '#/components/schemas/Author' }, editor: { allOf: [{ $ref: '#/components/schemas/Author' }], nullable: true }, tags: { type: 'array', items: { $ref: '#/components/schemas/Tag' } } },
    })
    for (const [pointer, object] of walkObjects(build.document)) {
      if (typeof object.$ref !== 'string') continue
      expect(Object.keys(object), pointer).toEqual(['$ref'])
      const [, section, name] = /^#\/components\/(\w+)\/(.+)$/.exec(object.$ref)!
      expect((build.document.components as Record<string, Record<string, unknown>>)[section!]![name!], object.$ref).toBeDefined()
    }
  })

  it('an unnamed schema is written inline', () => {
    const build = describeApp(books, {})
    const list = (operation(build, 'get', '/api/v1/books').responses as Record<string, { content: Record<string, { schema: { properties: { data: JsonObject } } }> }>)['200']!
    expect(list.content['application/json']!.schema.properties.data).toMatchObject({ type: 'array', items: { type: 'object', properties: { title: { type: 'string' } } } })
  })

  it('a named schema whose input and output differ (a transform) is two components: <Name> and <Name>Input', () => {
    const Slug = v.object({ slug: v.pipe(v.string(), v.transform((text) => text.length), v.number()) })
    const build = describeApp(defineRoutes((r) => r.post('/slugs', function slug() {}).body(Slug).response(Slug)), { Slug })
    const schemas = (build.document.components as { schemas: Record<string, JsonObject> }).schemas
    expect(schemas.Slug).toMatchObject({ properties: { slug: { type: 'number' } } })
    expect(schemas.SlugInput).toMatchObject({ properties: { slug: { type: 'string' } } })
    expect(operation(build, 'post', '/api/slugs').requestBody).toMatchObject({ content: { 'application/json': { schema: { $ref: '#/components/schemas/SlugInput' } } } })
  })

  it('a recursive schema gets a component of its own', async () => {
    type Node = { name: string; children: Node[] }
    const TreeNode: v.GenericSchema<Node> = v.object({ name: v.string(), children: v.array(v.lazy(() => TreeNode)) })
    const build = describeApp(defineRoutes((r) => r.get('/tree', function tree() {}).response(TreeNode)))
    const schemas = (build.document.components as { schemas: Record<string, JsonObject> }).schemas
    expect(Object.keys(schemas).filter((name) => name.startsWith('Recursive'))).toHaveLength(1)
    expect(await validateWithParsers(build.document)).toEqual([])
  })
})

describe('warnings', () => {
  it('what cannot be converted is a warning naming the route, the part and the field, never a crash; the rest is documented', () => {
    const Odd = v.object({ when: v.date(), code: v.pipe(v.string(), v.check((code) => code.startsWith('X'))), fine: v.string() })
    const foreign = { '~standard': { version: 1, vendor: 'acme', validate: (value: unknown) => ({ value }) } } as StandardSchemaV1
    const build = describeApp(
      defineRoutes((r) => {
        r.post('/odd', function odd() {}).body(Odd)
        r.get('/foreign', function foreign_() {}).response(foreign)
      }),
    )
    expect(build.warnings).toEqual([
      { method: 'GET', path: '/api/foreign', part: 'response', field: '', message: expect.stringContaining('acme schema carries no JSON Schema') },
      { method: 'POST', path: '/api/odd', part: 'body', field: 'code', message: 'The "check" action cannot be converted to JSON Schema.' },
      { method: 'POST', path: '/api/odd', part: 'body', field: 'when', message: 'The "date" schema cannot be converted to JSON Schema.' },
    ])
    const body = (operation(build, 'post', '/api/odd').requestBody as { content: Record<string, { schema: JsonObject }> }).content['application/json']!.schema
    expect(body).toMatchObject({ properties: { fine: { type: 'string' }, code: { type: 'string' } } })
  })

  it('routes OpenAPI cannot tell apart (same path shape, other parameter names) are one operation, with a warning; another method keeps the first names', () => {
    const build = describeApp(
      defineRoutes((r) => {
        r.get('/posts/{id}', function showPost() {}).where('id', /\d+/)
        r.get('/posts/{slug}', function showBySlug() {}).where('slug', /[a-z-]+/)
        r.put('/posts/{slug}', function updateBySlug() {})
      }),
    )
    expect(Object.keys(build.document.paths as object)).toContain('/api/posts/{id}')
    expect(Object.keys(build.document.paths as object)).not.toContain('/api/posts/{slug}')
    const show = operation(build, 'get', '/api/posts/{id}')
    expect((show.parameters as JsonObject[])[0]!.schema).toEqual({ type: 'string', anyOf: [{ pattern: '^(?:\\d+)$' }, { pattern: '^(?:[a-z-]+)$' }] })
    expect(show.description).toContain('GET /api/posts/{slug} (showBySlug)')
    expect((operation(build, 'put', '/api/posts/{id}').parameters as JsonObject[])[0]).toMatchObject({ name: 'id', description: 'The route names it {slug}.' })
    expect(build.warnings.map((warning) => `${warning.method} ${warning.path}: ${warning.message}`)).toEqual([
      'GET /api/posts/{slug}: OpenAPI cannot tell this route from GET /api/posts/{id} (showPost), tried before it: both are one operation, GET /api/posts/{id}',
      'PUT /api/posts/{slug}: documented under /api/posts/{id}: OpenAPI cannot have paths that differ only in parameter names',
    ])
  })
})

describe('the document as a whole', () => {
  it('is valid for both parsers (they also catch missing path parameters and duplicate operationIds)', async () => {
    expect(await validateWithParsers(describeApp(books, { Book, BookInput, Author, Tag }, { API_KEY: 'k'.repeat(32) }).document)).toEqual([])
  })

  it('the parsers would refuse a broken one: a path parameter left out, a duplicate operationId (readme), a response without a description (both)', async () => {
    const document = describeApp(books, { Book }).document as { paths: Record<string, Record<string, JsonObject>> }
    const broken = (change: (paths: Record<string, Record<string, JsonObject>>) => void) => {
      const copy = structuredClone(document)
      change(copy.paths)
      return validateWithParsers(copy)
    }
    expect(await broken((paths) => delete paths['/api/v1/books/{id}']!.get!.parameters)).toEqual([expect.stringContaining('missing path parameter')])
    expect(await broken((paths) => (paths['/api/v1/books']!.get!.operationId = 'getApiV1BooksById'))).toEqual([expect.stringContaining('duplicated')])
    const undescribed = await broken((paths) => delete (paths['/api/v1/books']!.get!.responses as Record<string, JsonObject>)['200']!.description)
    expect(undescribed).toEqual([expect.stringMatching(/^@readme.*description/s), expect.stringMatching(/^@apidevtools.*description/s)])
  })

  it('is OpenAPI 3.0.3, and the same routes give the same bytes', () => {
    const first = describeApp(books, { Book, BookInput, Author, Tag })
    const second = describeApp(books, { Book, BookInput, Author, Tag })
    expect(first.document.openapi).toBe('3.0.3')
    expect(stableStringify(first.document, true)).toBe(stableStringify(second.document, true))
  })
})

describe('declaring responses on a route', () => {
  const declare = (define: Parameters<typeof defineRoutes>[0]) => () => defineRoutes(define)

  it('refuses a success status outside 200-399, a bodiless response that is not 204/205/304, and error statuses outside 400-599 or without a description', () => {
    expect(declare((r) => r.get('/a', function a() {}).response(Book, { status: 404 }))).toThrow(RouteDefinitionError)
    expect(declare((r) => r.get('/a', function a() {}).response(null))).toThrow(/204/)
    expect(declare((r) => r.get('/a', function a() {}).errors({ 200: 'fine' }))).toThrow(/400 to 599/)
    expect(declare((r) => r.get('/a', function a() {}).errors({ 404: ' ' }))).toThrow(/description/)
    expect(declare((r) => r.get('/a', function a() {}).response({} as StandardSchemaV1))).toThrow(/Standard Schema/)
  })

  it('a page (contentType text/html) documents its success as that type, without the envelope; errors stay JSON', () => {
    const pages = defineRoutes((r) => r.get('/page', function page() {}).query(v.object({ token: v.string() })).response(v.string(), { contentType: 'Text/HTML' }))
    const op = operation(describeApp(pages), 'get', '/api/page')
    const responses = op.responses as Record<string, { content: Record<string, unknown> }>
    expect(responses['200']!.content).toEqual({ 'text/html': { schema: { type: 'string' } } })
    expect(Object.keys(responses['422']!.content)).toEqual(['application/json'])
    expect(declare((r) => r.get('/a', function a() {}).response(v.string(), { contentType: 'html' }))).toThrow(/media type such as text\/html, got "html"/)
    const json = createApp({ api: defineRoutes((r) => r.get('/a', function a() {}).response(Book, { contentType: 'application/json' })) })
    expect(json.routes().find((candidate) => candidate.path === '/api/a')!.responses).toEqual({ status: 200, envelope: true, errors: {} })
  })

  it('is in the route description (in-process), not in route:list JSON', () => {
    const app = createApp({ api: defineRoutes((r) => r.post('/a', function a() {}).response(Book, { status: 201 }).errors({ 409: 'Taken' }).errors({ 404: 'Gone' })) })
    const route = app.routes().find((candidate) => candidate.path === '/api/a')!
    expect(route.responses).toEqual({ status: 201, envelope: true, errors: { 404: 'Gone', 409: 'Taken' } })
  })
})
