/**
 * `svc route:list` (table, `--json`, `--method`, `--path`) in a temp copy of
 * examples/blog, and its cache storage/cache/routes.json: written on first
 * use, reused while the route files are unchanged, rebuilt when one changes,
 * cleared by deleting it.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { copyExampleApp, type AppCopy } from '../helpers/cli.ts'
import { runSvc, svcJson } from '../helpers/run-svc.ts'

interface RouteJson {
  method: string
  path: string
  params: Array<{ name: string; optional: boolean; pattern: string | null }>
  middleware: string[]
  handler: string
  source: { file: string; line: number; column: number } | null
  group: string | null
  version: number | null
  schemas: { body: boolean; query: boolean; response: boolean }
}

let app: AppCopy
let originalWeb: string
beforeAll(() => {
  app = copyExampleApp()
  originalWeb = app.read('routes', 'web.ts')
})
afterAll(() => app.remove())
beforeEach(() => {
  rmSync(app.path('storage', 'cache'), { recursive: true, force: true })
  app.write('routes/web.ts', originalWeb)
})

const cacheFile = () => app.path('storage', 'cache', 'routes.json')
const routes = async (...args: string[]) => (await svcJson<{ routes: RouteJson[] }>(['route:list', ...args], { cwd: app.dir })).routes
const find = (list: RouteJson[], method: string, path: string) => list.find((route) => route.method === method && route.path === path)
const lineOf = (file: string, text: string) => app.read(file).split('\n').findIndex((line) => line.includes(text)) + 1

describe('svc route:list --json', () => {
  it("places each route's source at its call's method name, DELETE routes included (they were at the parenthesis)", async () => {
    const list = (await routes()).filter((route) => route.source !== null)
    expect(list.some((route) => route.method === 'DELETE')).toBe(true)
    for (const route of list) {
      const line = app.read(route.source!.file).split('\n')[route.source!.line - 1]!
      const method = route.method === 'ANY' ? 'any' : route.method.toLowerCase()
      expect(line.slice(route.source!.column - 1), `${route.method} ${route.path}`).toMatch(new RegExp(`^${method}\\(`))
    }
  })
  it('describes every route: method, full path, params and constraints, middleware, handler, source, group, version', async () => {
    const list = await routes()
    expect(find(list, 'GET', '/health/live')).toMatchObject({ handler: 'liveness', source: null })
    expect(find(list, 'GET', '/')).toMatchObject({ handler: 'welcome', source: { file: 'routes/web.ts' } })

    const show = find(list, 'GET', '/api/v1/posts/{id}')!
    expect(show).toMatchObject({ handler: 'showPost', group: '/v1', version: 1, middleware: [] })
    expect(show.params).toHaveLength(1)
    expect(show.params[0]).toMatchObject({ name: 'id', optional: false })
    expect(show.params[0]!.pattern).toContain('\\d+')
    expect(show.source).toEqual({ file: 'routes/api.ts', line: lineOf('routes/api.ts', "'/posts/{id}', posts.showPost"), column: expect.any(Number) })

    expect(find(list, 'GET', '/api/v1/posts/archive/{year?}')!.params).toEqual([{ name: 'year', optional: true, pattern: expect.stringContaining('\\d{4}') }])
    expect(find(list, 'GET', '/api/v2/posts/{id}')).toMatchObject({ version: 2, middleware: ['responseTime'] })
    expect(find(list, 'DELETE', '/api/v1/posts/{id}')!.middleware.length).toBeGreaterThan(0)

    // Which schemas each route declares: the example's, and svc's auth routes'.
    expect(find(list, 'POST', '/api/v1/posts')!.schemas).toEqual({ body: true, query: false, response: true })
    expect(find(list, 'GET', '/api/v1/posts/{id}')!.schemas).toEqual({ body: false, query: false, response: true })
    expect(find(list, 'GET', '/api/v2/posts')!.schemas).toEqual({ body: false, query: true, response: true })
    expect(find(list, 'POST', '/api/auth/login')!.schemas).toEqual({ body: true, query: false, response: true })
    expect(find(list, 'POST', '/api/auth/logout')!.schemas).toEqual({ body: false, query: false, response: true })
    expect(find(list, 'GET', '/')!.schemas).toEqual({ body: false, query: false, response: false })

    // Matching order: {id} before {slug}, as defined.
    const paths = list.map((route) => `${route.method} ${route.path}`)
    expect(paths.indexOf('GET /api/v1/posts/{id}')).toBeLessThan(paths.indexOf('GET /api/v1/posts/{slug}'))
  })

  it('--method and --path filter (case-insensitive method; ANY matches every method)', async () => {
    const deletes = await routes('--method=delete')
    expect(deletes.length).toBeGreaterThan(0)
    expect(deletes.every((route) => route.method === 'DELETE' || route.method === 'ANY')).toBe(true)

    const v2 = await routes('--path=/api/v2')
    expect(v2.map((route) => `${route.method} ${route.path}`)).toEqual(['GET /api/v2/posts', 'POST /api/v2/posts', 'GET /api/v2/posts/{id}'])

    const both = await routes('--method', 'GET', '--path', 'archive')
    expect(both.map((route) => `${route.method} ${route.path}`)).toEqual(['GET /api/v1/posts/archive/{year?}'])
    expect(await routes('--path=/nothing/like/this')).toEqual([])
  })

  it('a method no route can have is E_BAD_OPTION, not an empty list', async () => {
    const { exitCode, stdout, stderr } = await runSvc(['route:list', '--method', 'PSOT', '--json'], { cwd: app.dir })
    expect(exitCode).not.toBe(0)
    expect(JSON.parse(stdout)).toMatchObject({ error: { code: 'E_BAD_OPTION' } })
    expect(stderr).toContain('error [E_BAD_OPTION]: --method takes one of GET, POST, PUT, PATCH, DELETE, HEAD, ANY, got "PSOT"')
    expect((await routes('--method', 'head')).some((route) => route.method === 'GET')).toBe(true)
  })

  it('does not open or create the database', async () => {
    await routes()
    expect(existsSync(app.path('storage', 'database.sqlite'))).toBe(false)
  })
})

describe('svc route:list (table)', () => {
  it('prints a table with the source file:line and a count', async () => {
    const { exitCode, stdout, stderr } = await runSvc(['route:list'], { cwd: app.dir })
    expect(exitCode).toBe(0)
    expect(stderr).toBe('')
    const lines = stdout.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^METHOD +PATH +MIDDLEWARE +HANDLER +SOURCE$/)
    const line = lineOf('routes/api.ts', "'/posts/{id}', posts.showPost")
    expect(stdout).toMatch(new RegExp(`^GET +/api/v1/posts/\\{id\\} +- +showPost +routes/api\\.ts:${line}$`, 'm'))
    const rows = lines.slice(1).filter((row) => /^[A-Z]+ +\//.test(row))
    expect(lines.at(-1)).toBe(`${rows.length} routes`)
    expect(rows.length).toBeGreaterThan(10)
  })

  it('says so when the filters match nothing', async () => {
    const { exitCode, stdout } = await runSvc(['route:list', '--path=/nothing'], { cwd: app.dir })
    expect(exitCode).toBe(0)
    expect(stdout).toBe('No routes match.\n')
  })
})

describe('the route cache, storage/cache/routes.json', () => {
  /** Marks the cached routes so that a listing shows whether it came from the cache. */
  function tamper(): void {
    const cache = JSON.parse(readFileSync(cacheFile(), 'utf8')) as { fingerprint: string; routes: RouteJson[] }
    cache.routes = cache.routes.map((route) => ({ ...route, handler: `cached:${route.handler}` }))
    writeFileSync(cacheFile(), JSON.stringify(cache))
  }

  it('is written by the first listing and holds the same routes', async () => {
    expect(existsSync(cacheFile())).toBe(false)
    const list = await routes()
    const cache = JSON.parse(readFileSync(cacheFile(), 'utf8')) as { fingerprint: string; routes: RouteJson[] }
    expect(cache.fingerprint).toMatch(/^[0-9a-f]{64}$/)
    expect(cache.routes).toEqual(list)
  })

  it('is reused while the route files are unchanged', async () => {
    await routes()
    tamper()
    expect((await routes()).every((route) => route.handler.startsWith('cached:'))).toBe(true)
  })

  it('is rebuilt when a route file changes', async () => {
    await routes()
    tamper()
    app.write('routes/web.ts', originalWeb.replace("r.get('/', function welcome", "r.get('/about', () => 'about')\n  r.get('/', function welcome"))
    const list = await routes()
    expect(list.some((route) => route.handler.startsWith('cached:'))).toBe(false)
    expect(find(list, 'GET', '/about')).toBeDefined()
    expect((JSON.parse(readFileSync(cacheFile(), 'utf8')) as { routes: RouteJson[] }).routes).toEqual(list)
  })

  it('deleting it clears it: the next listing reads the routes again and rewrites it', async () => {
    await routes()
    tamper()
    rmSync(cacheFile())
    const list = await routes()
    expect(list.some((route) => route.handler.startsWith('cached:'))).toBe(false)
    expect(existsSync(cacheFile())).toBe(true)
  })

  it('a damaged cache is rebuilt, never trusted', async () => {
    await routes()
    writeFileSync(cacheFile(), '{"fingerprint": "')
    const list = await routes()
    expect(find(list, 'GET', '/api/v1/posts')).toBeDefined()
  })
})
