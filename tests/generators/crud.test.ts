/**
 * `make:crud` end to end, on a copy of the example app: the files and the
 * routes it adds, twice (the second run changes nothing), `--simple
 * --public`, `--force`; then, as a user would after `svc make:crud Product
 * --seed && svc migrate` and seeding, the endpoints through the app in
 * process (pagination, filter, sort, 404, 201, 422, 200, 204, auth); the
 * project type-checks and the tests make:crud wrote pass under vitest.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestClient, type TestClient } from 'svc/testing'
import type { MakeJson } from '../../cli/contract/index.ts'
import { loadApp, type LoadedApp } from '../../cli/project/load-app.ts'
import { findProject } from '../../cli/project/project.ts'
import type { AppCopy } from '../helpers/cli.ts'
import { runSvc, svcJson } from '../helpers/run-svc.ts'
import { PASSWORD, SECRET } from '../auth/helpers.ts'
import { appFiles, generatorApp, projectTests, typecheck } from './helpers.ts'

let app: AppCopy
let first: MakeJson
let second: MakeJson
let before: Map<string, string>
let after: Map<string, string>
let tags: MakeJson
let keywords: MakeJson[]

const make = (...args: string[]) => svcJson<MakeJson>(args, { cwd: app.dir })

beforeAll(async () => {
  app = generatorApp()
  app.write('.env', `APP_ENV=test\nAPP_DEBUG=false\nJWT_SECRET=${SECRET}\nPASSWORD_HASH_MEMORY_KIB=64\nPASSWORD_HASH_ITERATIONS=1\n`)
  first = await make('make:crud', 'Product', '--seed')
  before = appFiles(app)
  second = await make('make:crud', 'Product', '--seed')
  after = appFiles(app)
  tags = await make('make:crud', 'Tag', '--simple', '--public', '--fields=label:string,weight:integer?')
  // SQL keywords as names: the table `values`, the columns order, group, default, key.
  keywords = [
    await make('make:crud', 'Widget', '--public', '--fields=order:integer,group:string,default:string?,key:boolean'),
    await make('make:crud', 'Value', '--public', '--simple'),
  ]
}, 120_000)
afterAll(() => app?.remove())

describe('make:crud Product --seed', () => {
  it('writes model, migration, schemas, resource, controller, service, repository, factory, seeder and tests, and registers the routes', () => {
    const written = first.written.map((path) => path.replace(/\d{14}_/, '<ts>_'))
    expect(written).toEqual([
      'app/models/product.ts',
      'database/migrations/<ts>_create_products_table.ts',
      'app/requests/product-request.ts',
      'app/resources/product-resource.ts',
      'app/controllers/products.ts',
      'app/services/product-service.ts',
      'app/repositories/product-repository.ts',
      'database/factories/product-factory.ts',
      'database/seeders/products.ts',
      'tests/products.test.ts',
    ])
    expect(first.skipped).toEqual([])
    expect(first.edits).toEqual([{ path: 'routes/api.ts', what: 'the products routes', status: 'changed' }])
    // The example's routes file has versions: the resource goes into the current one (v2), before the fallback.
    const routes = app.read('routes', 'api.ts')
    expect(routes.indexOf("r.get('/products', products.listProducts)")).toBeGreaterThan(routes.indexOf('r.version(2'))
    expect(routes.indexOf("r.delete('/products/{id}'")).toBeLessThan(routes.indexOf('r.fallback('))
  })

  it('a second run changes nothing: every file kept as it was, the routes already there', () => {
    expect(second.written).toEqual([])
    expect(second.skipped.map((file) => file.path)).toEqual(first.written)
    expect(second.skipped.every((file) => file.identical)).toBe(true)
    expect(second.edits).toEqual([{ path: 'routes/api.ts', what: 'the products routes', status: 'unchanged' }])
    expect(after).toEqual(before)
  })

  it('declares each route’s schemas and auth (route:list reads them)', async () => {
    const list = await svcJson(['route:list', '--path', 'products'], { cwd: app.dir })
    const rows = list.routes.map((route: { method: string; path: string; middleware: string[]; schemas: Record<string, boolean> }) => [route.method, route.path, route.middleware.join(','), route.schemas])
    expect(rows).toEqual([
      ['GET', '/api/v2/products', 'auth', { body: false, query: true, response: true }],
      ['GET', '/api/v2/products/{id}', 'auth', { body: false, query: false, response: true }],
      ['POST', '/api/v2/products', 'auth', { body: true, query: false, response: true }],
      ['PUT', '/api/v2/products/{id}', 'auth', { body: true, query: false, response: true }],
      ['DELETE', '/api/v2/products/{id}', 'auth', { body: false, query: false, response: false }],
    ])
  })

  it('--simple --public: no service or repository, routes without auth', async () => {
    expect(tags.written.some((path) => /service|repositor/.test(path))).toBe(false)
    expect(tags.written).toContain('app/controllers/tags.ts')
    expect(app.read('app', 'controllers', 'tags.ts')).toContain('Tag.paginate(c.db')
    expect(app.read('routes', 'api.ts')).toContain("r.delete('/tags/{id}', tags.deleteTag).where('id', /\\d+/).response(null, { status: 204 })\n")
  })

  it('refuses, writing nothing, when a file it writes exists and differs; --force overwrites it', async () => {
    const model = app.path('app', 'models', 'tag.ts')
    const original = readFileSync(model, 'utf8')
    writeFileSync(model, `${original}// mine\n`)
    const files = appFiles(app)
    const refused = await runSvc(['make:crud', 'Tag', '--simple', '--public', '--fields=label:string,weight:integer?'], { cwd: app.dir })
    expect(refused.exitCode).toBe(1)
    expect(refused.stderr).toContain('E_EXISTS')
    expect(refused.stderr).toContain('app/models/tag.ts exists and differs')
    expect(refused.stderr).toContain('--force')
    expect(refused.stderr).not.toContain('Next:')
    expect(appFiles(app)).toEqual(files)
    const forced = await runSvc(['make:crud', 'Tag', '--simple', '--public', '--fields=label:string,weight:integer?', '--force'], { cwd: app.dir })
    expect(forced.exitCode).toBe(0)
    expect(forced.stdout).toContain('Overwrote app/models/tag.ts\n')
    expect(forced.stdout).not.toContain('Created')
    expect(forced.stdout).toContain('Exists  app/controllers/tags.ts (unchanged)')
    expect(forced.stdout).toContain('Exists  routes/api.ts (already has the tags routes)')
    expect(readFileSync(model, 'utf8')).toBe(original)
  })

  it('refuses a name whose controller and routes the app already has (its own posts), even with --force, writing nothing', async () => {
    const files = appFiles(app)
    for (const force of [[], ['--force']]) {
      const refused = await runSvc(['make:crud', 'Post', ...force], { cwd: app.dir })
      expect(refused.exitCode).toBe(1)
      expect(refused.stderr).toContain('E_EXISTS')
      expect(refused.stderr).toContain('wrote nothing')
      if (force.length === 0) expect(refused.stderr).toContain('app/controllers/posts.ts exists and differs')
      expect(refused.stderr).toContain('routes/api.ts already has GET /api/v2/posts, POST /api/v2/posts, GET /api/v2/posts/{id}')
      expect(refused.stderr).toContain('pick another name')
      expect(appFiles(app)).toEqual(files)
    }
  })

  it('quotes every identifier in the SQL it writes: SQL keywords are names like any other, and svc migrate runs them', async () => {
    const [widgets, values] = keywords.map((result) => app.read(result.written.find((path) => path.includes('/migrations/'))!))
    expect(widgets).toContain('"order" integer not null,\n    "group" text not null,\n    "default" text,\n    "key" integer not null,')
    expect(values).toContain('create table "values" (')
    expect(values).toContain(`await db.execute('drop table "values"')`)
    const migrated = await runSvc(['migrate'], { cwd: app.dir })
    expect(migrated.stderr).not.toContain('SQLITE_ERROR')
    expect(migrated.exitCode).toBe(0)
    expect((await runSvc(['db:show', 'widgets'], { cwd: app.dir })).stdout).toMatch(/\bgroup\b/)
  })

  it('refuses a bad name or bad fields before writing anything', async () => {
    const files = appFiles(app)
    const bad = await runSvc(['make:crud', '../Evil'], { cwd: app.dir })
    expect(bad.exitCode).toBe(1)
    expect(bad.stderr).toContain('E_BAD_NAME')
    const fields = await runSvc(['make:crud', 'Order', '--fields=total:money'], { cwd: app.dir })
    expect(fields.stderr).toContain('E_BAD_FIELDS')
    expect(appFiles(app)).toEqual(files)
  })
})

describe('the endpoints, after migrate and seed', () => {
  let loaded: LoadedApp
  let client: TestClient
  let token: string
  const base = '/api/v2/products'

  beforeAll(async () => {
    expect((await runSvc(['migrate'], { cwd: app.dir })).exitCode).toBe(0)
    const seeded = await svcJson(['migrate:fresh', '--seed'], { cwd: app.dir })
    expect(seeded.seeded).toContain('products')
    loaded = await loadApp(findProject(app.dir))
    client = createTestClient(loaded.app)
    const registered = await client.post('/api/auth/register', {
      json: { name: 'Ada', email: 'ada@example.com', password: PASSWORD, password_confirmation: PASSWORD },
    })
    token = registered.body.data.token
  }, 60_000)
  afterAll(() => loaded?.close())

  it('index: a page of the seeded rows with meta; per_page is capped; bad values are a 422', async () => {
    const page = await client.get(`${base}?page=2&per_page=3`, { token })
    expect(page.status).toBe(200)
    expect(page.body.meta).toEqual({ page: 2, per_page: 3, total: 10, last_page: 4 })
    expect(page.body.data.map((row: { id: number }) => row.id)).toEqual([4, 5, 6])
    expect(Object.keys(page.body.data[0]).sort()).toEqual(['created_at', 'description', 'id', 'name', 'updated_at'])
    expect((await client.get(base, { token })).body.meta).toEqual({ page: 1, per_page: 20, total: 10, last_page: 1 })
    const bad = await client.get(`${base}?page=0&per_page=1000&sort=price`, { token })
    expect(bad.status).toBe(422)
    expect(bad.body.errors).toEqual({
      page: ['The page field must be at least 1.'],
      per_page: ['The per page field must not be greater than 100.'],
      sort: ['The selected sort is invalid.'],
    })
  })

  it('index: search and sort', async () => {
    const found = await client.get(`${base}?search=product%201&sort=-id`, { token })
    expect(found.body.data.map((row: { name: string }) => row.name)).toEqual(['Product 10', 'Product 1'])
    const sorted = await client.get(`${base}?sort=-name&per_page=2`, { token })
    expect(sorted.body.data.map((row: { name: string }) => row.name)).toEqual(['Product 9', 'Product 8'])
  })

  it('show: the row, or a 404 envelope', async () => {
    expect((await client.get(`${base}/3`, { token })).body.data).toMatchObject({ id: 3, name: 'Product 3' })
    const missing = await client.get(`${base}/999`, { token })
    expect(missing.status).toBe(404)
    expect(missing.body).toEqual({ success: false, error: 'Product not found', code: 404 })
    expect((await client.get(`${base}/abc`, { token })).status).toBe(404)
  })

  it('store: 201 with the row; 422 per field', async () => {
    const created = await client.post(base, { json: { name: '  Lamp  ', description: null }, token })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({ success: true, message: 'Product created', data: { name: 'Lamp', description: null } })
    const invalid = await client.post(base, { json: { description: 42 }, token })
    expect(invalid.status).toBe(422)
    expect(invalid.body.errors).toEqual({ name: ['The name field is required.'], description: ['The description field must be a string.'] })
    expect((await client.post(base, { body: '{"name":', headers: { 'content-type': 'application/json' }, token })).status).toBe(400)
  })

  it('store: text is kept as sent or refused, never cut (libSQL reads text back cut at a NUL)', async () => {
    const nul = await client.post(base, { json: { name: 'Lamp\u0000 (hidden)', description: 'a\u0000b' }, token })
    expect(nul.status).toBe(422)
    expect(nul.body.errors).toEqual({
      name: ['The name field must not contain control or invisible characters.'],
      description: ['The description field must not contain a NUL character.'],
    })
    // A description may run over several lines; what is stored is what reads back.
    const multiline = await client.post(base, { json: { name: 'Desk', description: 'line one\nline two\ttabbed' }, token })
    expect(multiline.status).toBe(201)
    const shown = await client.get(`${base}/${multiline.body.data.id}`, { token })
    expect(shown.body.data.description).toBe('line one\nline two\ttabbed')
  })

  it('update: 200, 404, 422', async () => {
    const updated = await client.put(`${base}/2`, { json: { name: 'Renamed', description: 'New' }, token })
    expect(updated.status).toBe(200)
    expect(updated.body.data).toMatchObject({ id: 2, name: 'Renamed', description: 'New' })
    expect((await client.put(`${base}/999`, { json: { name: 'x' }, token })).status).toBe(404)
    const invalid = await client.put(`${base}/2`, { json: { name: '' }, token })
    expect(invalid.status).toBe(422)
    expect(invalid.body.errors).toEqual({ name: ['The name field is required.'] })
  })

  it('destroy: 204 without a body, then 404', async () => {
    const deleted = await client.delete(`${base}/5`, { token })
    expect(deleted.status).toBe(204)
    expect(deleted.body).toBeNull()
    expect(deleted.headers.get('x-service-trace-id')).toMatch(/^svc_/)
    expect((await client.delete(`${base}/5`, { token })).status).toBe(404)
  })

  it('--force never rewrites a migration the database has run: it refuses, writing nothing', async () => {
    const files = appFiles(app)
    const refused = await runSvc(['make:crud', 'Product', '--seed', '--fields=name:string,price:number', '--force'], { cwd: app.dir })
    expect(refused.exitCode).toBe(1)
    expect(refused.stderr).toContain('E_MIGRATION_APPLIED')
    expect(refused.stderr).toMatch(/database\/migrations\/\d{14}_create_products_table\.ts, which the database has already run/)
    expect(refused.stderr).toContain('svc make:migration add_')
    expect(appFiles(app)).toEqual(files)
  })

  it('requires a token; the --public resource does not', async () => {
    expect((await client.get(base)).status).toBe(401)
    expect((await client.post(base, { json: { name: 'x' } })).status).toBe(401)
    const tag = await client.post('/api/v2/tags', { json: { label: 'new', weight: 2 } })
    expect(tag.status).toBe(201)
    expect((await client.get('/api/v2/tags')).body.meta.total).toBe(1)
  })

  it('PUT is a full replacement: an optional field left out is cleared, not kept', async () => {
    const tag = await client.post('/api/v2/tags', { json: { label: 'heavy', weight: 9 } })
    expect(tag.body.data).toMatchObject({ label: 'heavy', weight: 9 })
    const replaced = await client.put(`/api/v2/tags/${tag.body.data.id}`, { json: { label: 'light' } })
    expect(replaced.status).toBe(200)
    expect(replaced.body.data).toMatchObject({ label: 'light', weight: null })
    expect((await client.get(`/api/v2/tags/${tag.body.data.id}`)).body.data).toMatchObject({ label: 'light', weight: null })
    expect((await client.delete(`/api/v2/tags/${tag.body.data.id}`)).status).toBe(204)
  })

  it('an integer field refuses a number beyond the safe range, which would be stored and then break the list', async () => {
    // JSON.parse already rounds 9007199254740993 to 2^53; libSQL stored it, then could not read it back (500 on every list).
    for (const weight of [2 ** 53, -(2 ** 53), 1e20]) {
      const refused = await client.post('/api/v2/tags', { json: { label: 'huge', weight } })
      expect(refused.status, String(weight)).toBe(422)
      expect(refused.body.errors.weight[0], String(weight)).toMatch(/^The weight field must (not be greater than 9007199254740991|be at least -9007199254740991)\.$/)
    }
    expect(await client.post('/api/v2/tags', { json: { label: 'largest', weight: Number.MAX_SAFE_INTEGER } })).toMatchObject({ status: 201 })
    const list = await client.get('/api/v2/tags')
    expect(list.status).toBe(200)
    expect(list.body.meta.total).toBe(2)
  })
})

describe('what make:crud wrote, as a project', () => {
  it('type-checks (tsc --noEmit)', async () => {
    const result = await typecheck(app)
    expect(result.output).toBe('')
    expect(result.code).toBe(0)
  }, 180_000)

  it('its generated tests pass with vitest', async () => {
    expect(existsSync(app.path('tests', 'products.test.ts'))).toBe(true)
    const result = await projectTests(app)
    // The generated files (products, and tags made earlier), beside the example's own tests/unit and tests/feature.
    expect(result.output).toMatch(/✓ tests\/products\.test\.ts/)
    expect(result.output).toMatch(/✓ tests\/tags\.test\.ts/)
    expect(result.output).toMatch(/✓ tests\/widgets\.test\.ts/)
    expect(result.output).toMatch(/✓ tests\/values\.test\.ts/)
    expect(result.output).toMatch(/Test Files\s+\d+ passed \(\d+\)/)
    expect(result.output).toMatch(/Tests\s+\d+ passed/)
    expect(result.code).toBe(0)
  }, 180_000)
})
