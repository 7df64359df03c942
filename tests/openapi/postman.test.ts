/**
 * `svc make:postman`: the collection of the example app parses with the
 * postman-collection library and has what the issue names (baseUrl, folders
 * by group/version, the auth flow first, example bodies, a test in every
 * request); newman runs it green against the example served on a free
 * port (127.0.0.1). Then `--flow=crud` after `make:crud Product` in a
 * temporary project: create → read → list → update → delete carrying the id.
 */
/// <reference path="../../node_modules/postman-collection/types/index.d.ts" />
// (postman-collection ships its types without naming them in package.json.)
import { Collection, type Item } from 'postman-collection'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as v from 'valibot'
import { authPlugin, createApp, defineRoutes, defineRule, resolveConfig } from '../../framework/index.ts'
import { buildOpenApi } from '../../cli/openapi/document.ts'
import { schemaNames } from '../../cli/openapi/schema-names.ts'
import { buildPostmanCollection } from '../../cli/postman/collection.ts'
import { sampleOf } from '../../cli/postman/examples.ts'
import { copyExampleApp, type AppCopy } from '../helpers/cli.ts'
import { failuresOf, runCollection } from '../helpers/newman.ts'
import { runSvc, startSvc, svcJson } from '../helpers/run-svc.ts'

/** The text of a request's test script. */
function testScript(item: Item): string {
  const { event = [] } = item.toJSON() as unknown as { event?: Array<{ listen: string; script: { exec: string[] } }> }
  return event.find((candidate) => candidate.listen === 'test')?.script.exec.join('\n') ?? ''
}

/** Serves the app in this process on 127.0.0.1 and a free port, runs `work`, stops it. */
async function served<T>(copy: AppCopy, work: (url: string) => Promise<T>): Promise<T> {
  const server = startSvc(['serve', '--migrate', '--port', '0', '--host', '127.0.0.1'], { cwd: copy.dir, env: { AUTH_REGISTER_THROTTLE: '1000,1' } })
  try {
    const [url] = await server.waitFor(/http:\/\/127\.0\.0\.1:\d+/, 60_000)
    return await work(url!)
  } finally {
    const stopped = await server.stop()
    expect(stopped.exitCode, stopped.stderr).toBe(0)
  }
}

describe('make:postman on the example app', () => {
  let copy: AppCopy
  let json: Record<string, unknown>
  let collection: Collection

  beforeAll(async () => {
    copy = copyExampleApp('blog')
    const made = await svcJson(['make:postman', '--json'], { cwd: copy.dir })
    expect(made).toMatchObject({ written: ['public/postman_collection.json'], flows: [] })
    json = JSON.parse(copy.read('public', 'postman_collection.json')) as Record<string, unknown>
    collection = new Collection(json as never)
  })

  afterAll(() => copy?.remove())

  it('parses as a Postman v2.1 collection, with a baseUrl variable and folders by group and version, the auth flow first and logging out last', () => {
    expect((json.info as { schema: string }).schema).toBe('https://schema.getpostman.com/json/collection/v2.1.0/collection.json')
    expect(collection.variables.get('baseUrl' as never)).toBe('http://localhost:8080')
    expect(collection.items.all().map((folder: { name: string }) => folder.name)).toEqual(['Auth flow', 'auth', 'health', 'v1', 'v2/posts', 'web', 'Log out'])
    const flow = collection.items.idx(0) as unknown as { items: { all(): Item[] } }
    expect(flow.items.all().map((item) => `${item.request.method} ${item.request.url.getPath()}`)).toEqual([
      'POST /api/auth/register',
      'POST /api/auth/login',
      'GET /api/auth/me',
      'POST /api/auth/refresh',
    ])
  })

  it('every request has a test of its status and success field; protected ones send {{token}}; bodies are examples from the schemas', () => {
    const requests: Item[] = []
    ;(collection as unknown as { forEachItem(each: (item: Item) => void): void }).forEachItem((item) => requests.push(item))
    expect(requests).toHaveLength(24)
    for (const item of requests) {
      const test = testScript(item)
      expect(test, item.name).toMatch(/pm\.test\('status is/)
      expect(test, item.name).toContain("pm.test('success matches the status'")
    }
    const create = requests.find((item) => item.request.method === 'POST' && item.request.url.getPath() === '/api/v1/posts')!
    expect(create.request.auth?.toJSON()).toMatchObject({ type: 'bearer', bearer: [{ key: 'token', value: '{{token}}' }] })
    expect(JSON.parse(create.request.body!.raw!)).toEqual({ title: 'example', body: '', published_at: '2026-01-01T00:00:00.000Z' })
    const register = requests.find((item) => item.request.url.getPath() === '/api/auth/register')!
    expect(JSON.parse(register.request.body!.raw!)).toEqual({ name: 'Postman User', email: '{{email}}', password: '{{password}}', password_confirmation: '{{password}}' })
    const login = requests.find((item) => item.request.url.getPath() === '/api/auth/login')!
    expect(testScript(login)).toContain("pm.collectionVariables.set('refresh_token'")
  })

  it('newman runs it against the example, served on a free port, with no failed request or assertion', async () => {
    const summary = await served(copy, (url) => runCollection(json, url))
    expect(failuresOf(summary)).toEqual([])
    expect(summary.run.stats.requests).toEqual({ total: 24, failed: 0, pending: 0 })
    expect(summary.run.stats.assertions.failed).toBe(0)
    expect(summary.run.stats.assertions.total).toBeGreaterThanOrEqual(44)
    const answers = Object.fromEntries(summary.run.executions.map((execution) => [`${execution.request.method} ${execution.item.name}`, execution.response?.code]))
    expect(answers).toMatchObject({ 'POST Register': 201, 'POST Login': 200, 'GET Me': 200, 'POST Refresh': 200, 'POST Create post': 201, 'DELETE Delete post': 403, 'POST Logout': 200, 'GET Me after logout (refused)': 401 })
  })

  it('--flow=crud on an app whose only resource needs an admin to delete: no flow, and a warning saying why', async () => {
    const made = await runSvc(['make:postman', '--flow=crud'], { cwd: copy.dir })
    expect(made.stdout).toContain('No resource has the five CRUD routes a flow needs')
    expect(made.stderr).toContain('no CRUD flow for /api/v1/posts: DELETE /api/v1/posts/{id} needs a role')
  })

  // PORT=0 (a free port at start-up) used to give baseUrl http://localhost:0 and a newman line that reached nothing.
  it('with PORT=0 and no --base-url: refused before writing, as svc t is, naming --base-url; with it, written', async () => {
    const before = copy.read('public', 'postman_collection.json')
    const refused = await runSvc(['make:postman', '--json'], { cwd: copy.dir, env: { PORT: '0' } })
    expect(refused.exitCode).toBe(1)
    expect(JSON.parse(refused.stdout).error).toMatchObject({
      code: 'E_BAD_OPTION',
      message: 'PORT=0 picks a free port at start-up: make:postman cannot know the baseUrl',
      fix: 'pass the address svc serve printed: --base-url=http://127.0.0.1:<port>',
    })
    expect(copy.read('public', 'postman_collection.json')).toBe(before)
    const given = await runSvc(['make:postman', '--base-url=http://127.0.0.1:41234'], { cwd: copy.dir, env: { PORT: '0' } })
    expect(given.exitCode, given.stderr).toBe(0)
    expect(given.stderr).toContain('--env-var baseUrl=http://127.0.0.1:41234')
  })
})

describe('make:postman --flow=crud after make:crud Product', () => {
  let copy: AppCopy

  beforeAll(async () => {
    copy = copyExampleApp('blog')
    const crud = await runSvc(['make:crud', 'Product'], { cwd: copy.dir })
    expect(crud.exitCode, crud.stderr).toBe(0)
  })

  afterAll(() => copy?.remove())

  it('adds the ordered flow, and newman runs it green: the created id is read, listed, updated, deleted, then gone', async () => {
    const made = await svcJson(['make:postman', '--flow=crud', '--json'], { cwd: copy.dir })
    expect(made.flows).toEqual(['/api/v2/products'])
    expect(made.folders.slice(0, 2)).toEqual(['Auth flow', 'CRUD flow: /api/v2/products'])
    const json = JSON.parse(copy.read('public', 'postman_collection.json')) as never
    new Collection(json)
    const summary = await served(copy, (url) => runCollection(json, url))
    expect(failuresOf(summary)).toEqual([])
    expect(summary.run.stats.requests.failed).toBe(0)
    expect(summary.run.stats.assertions.failed).toBe(0)
    const flow = summary.run.executions.filter((execution) => /products/.test(execution.request.url.toString())).slice(0, 6)
    expect(flow.map((execution) => `${execution.request.method} ${execution.response?.code}`)).toEqual(['POST 201', 'GET 200', 'GET 200', 'PUT 200', 'DELETE 204', 'GET 404'])
    const id = /products\/(\d+)/.exec(flow[1]!.request.url.toString())![1]
    for (const step of [flow[1]!, flow[3]!, flow[4]!, flow[5]!]) expect(step.request.url.toString()).toContain(`/api/v2/products/${id}`)
    const assertions = flow.flatMap((execution) => (execution.assertions ?? []).map((assertion) => assertion.assertion))
    expect(assertions).toEqual(expect.arrayContaining(['the answer carries data.id', 'data.id is {{products_id}}', 'status is 204', 'status is 404']))
  })
})

describe('the collection builder', () => {
  const app = createApp({
    config: resolveConfig({ APP_ENV: 'test', API_KEY: 'k'.repeat(32) }),
    plugins: [authPlugin()],
    api: defineRoutes((r) => {
      r.post('/hooks/{code}', function hook() {}).where('code', /[A-Z]{3}-\d{2}/).middleware('apikey')
      r.post('/notes', function createNote() {}).body(v.object({ text: v.pipe(v.string(), v.minLength(12), v.maxLength(20)), stars: v.pipe(v.number(), v.minValue(3)) }))
    }),
  })
  const { document } = buildOpenApi(app.routes(), schemaNames('/nonexistent-app'), { title: 'hooks', version: '1' })
  const { collection } = buildPostmanCollection(document, { baseUrl: 'http://127.0.0.1:9' })
  const requests = collection.item.flatMap((folder) => folder.item)
  const byPath = (path: string) => requests.find((item) => (item.request.url as { raw: string }).raw.startsWith(`{{baseUrl}}${path}`))!

  it('an API-key route sends x-api-key: {{apiKey}} (a collection variable) and accepts any documented answer; its path variable is an example of its pattern', () => {
    expect(collection.variable.map((variable) => variable.key)).toContain('apiKey')
    const hook = byPath('/api/hooks/:code')
    expect(hook.request.header).toContainEqual({ key: 'x-api-key', value: '{{apiKey}}' })
    expect((hook.request.url as { variable: unknown }).variable).toEqual([{ key: 'code', value: 'AAA-11' }])
    expect(hook.event[0]!.script.exec.join('\n')).toContain('status is one the description documents (200, 401, 404)')
  })

  it('example bodies follow the schema’s rules (lengths, bounds); a request it can bring about must answer its success status', () => {
    const note = byPath('/api/notes')
    expect(JSON.parse((note.request.body as { raw: string }).raw)).toEqual({ text: 'examplexxxxx', stars: 3 })
    expect(note.event[0]!.script.exec.join('\n')).toContain("pm.test('status is 200'")
  })

  it('a body whose example may fail a rule the description cannot state (an app rule, a pattern it cannot sample) is tested against the documented answers, with a warning; no CRUD flow is built on it', () => {
    const sku = defineRule({ name: 'sku', message: 'The {field} field must be a SKU.', check: (value: string) => /^[A-Z]{3}-\d{3}$/.test(value) })
    const Line = v.object({ sku: v.pipe(v.string(), sku()), qty: v.number() })
    const item = v.object({ name: v.pipe(v.string(), v.regex(/^(?=.*\d)\w+$/)) })
    const withRules = createApp({
      config: resolveConfig({ APP_ENV: 'test' }),
      plugins: [authPlugin()],
      api: defineRoutes((r) => {
        r.post('/orders', function createOrder() {}).body(v.object({ lines: v.array(Line), note: v.optional(v.string()) }))
        r.post('/gifts', function createGift() {}).body(v.object({ sku: v.pipe(v.string(), sku(), v.metadata({ example: 'ABC-123' })) }))
        r.get('/items', function listItems() {})
        r.post('/items', function createItem() {}).body(item)
        r.get('/items/{id}', function showItem() {})
        r.put('/items/{id}', function updateItem() {}).body(item)
        r.delete('/items/{id}', function deleteItem() {})
      }),
    })
    const described = buildOpenApi(withRules.routes(), schemaNames('/nonexistent-app'), { title: 'rules', version: '1' }).document
    const built = buildPostmanCollection(described, { baseUrl: 'http://127.0.0.1:9', crud: true })
    const all = built.collection.item.flatMap((folder) => folder.item)
    const at = (path: string) => all.find((entry) => (entry.request.url as { raw: string }).raw === `{{baseUrl}}${path}` && entry.request.method === 'POST')!
    // Its example ("example") fails the app's rule: a strict 200 would fail every newman run of a correct app.
    expect(at('/api/orders').event[0]!.script.exec.join('\n')).toContain('status is one the description documents (200, 400, 413, 415, 422)')
    expect(built.warnings).toContainEqual(expect.objectContaining({ method: 'POST', path: '/api/orders', part: 'body', field: 'lines[].sku', message: expect.stringContaining('lines[].sku (rule sku)') }))
    // With an example given, the field is sure, and the success is required.
    expect(JSON.parse((at('/api/gifts').request.body as { raw: string }).raw)).toEqual({ sku: 'ABC-123' })
    expect(at('/api/gifts').event[0]!.script.exec.join('\n')).toContain("pm.test('status is 200'")
    expect(built.warnings.filter((warning) => warning.path === '/api/gifts')).toEqual([])
    // A lookahead is beyond the sampler: the create step would fail, so the resource gets no flow, and a warning says why.
    expect(built.flows).toEqual([])
    expect(built.warnings).toContainEqual(expect.objectContaining({ path: '/api/items', field: 'name', message: expect.stringMatching(/no CRUD flow for \/api\/items.*name \(pattern/) }))
  })

  it('samples simple patterns, and gives up (undefined) rather than guess wrong', () => {
    expect(['^(?:\\d+)$', '^(?:\\d{4})$', '^(?:[a-z0-9-]+)$', '^(?:foo|bar)$', '^[^/]+$', '^\\p{L}+$'].map(sampleOf)).toEqual(['1', '1111', 'a', 'foo', undefined, undefined])
  })
})
