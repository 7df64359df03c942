/**
 * `svc route:search <keyword>` and `svc route:rules`, in-process on a copy of
 * examples/blog: what a keyword matches (path, handler, middleware,
 * controller), and every declared request schema as JSON Schema with the
 * warnings for what cannot be converted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RouteRulesJson, RouteSearchJson } from '../../cli/contract/index.ts'
import { toJsonSchema } from '../../cli/schemas/to-json-schema.ts'
import { PostInput } from '../../examples/blog/app/controllers/posts.ts'
import { copyExampleApp, type AppCopy } from '../helpers/cli.ts'
import { runSvc, svcJson } from '../helpers/run-svc.ts'

let app: AppCopy
beforeAll(() => {
  app = copyExampleApp()
  // A controller imported by name, an object of handlers, and an inline handler, beside the example's namespace import.
  app.write(
    'app/controllers/tag-controller.ts',
    `import * as v from 'valibot'
import type { Context } from 'svc'
export const TagInput = v.object({ name: v.pipe(v.string(), v.maxLength(30)), color: v.optional(v.pipe(v.string(), v.check((c) => c.startsWith('#')))) })
export const TagController = {
  index: (c: Context) => c.db.all('select 1 as id'),
  store: async (c: Context<'/tags', { body: typeof TagInput }>) => c.body(),
}
export function archiveTags() { return [] }
`,
  )
  app.write(
    'routes/web.ts',
    `import { defineRoutes } from 'svc'
import { TagController, TagInput, archiveTags } from '../app/controllers/tag-controller.ts'
export default defineRoutes((r) => {
  r.get('/', function welcome() { return {} })
  r.get('/tags', TagController.index)
  r.post('/tags', TagController.store).body(TagInput).middleware('auth:editor')
  r.delete('/tags/archive', archiveTags)
})
`,
  )
})
afterAll(() => app.remove())

const search = (keyword: string) => svcJson<RouteSearchJson>(['route:search', keyword], { cwd: app.dir })
const summary = (json: RouteSearchJson) => json.routes.map((route) => `${route.method} ${route.path} ${route.matched.join('+')} ${route.controller?.name ?? '-'}`)

describe('svc route:search', () => {
  it('matches the path, case-insensitively, and names each route\'s controller from the route file\'s imports', async () => {
    const json = await search('ARCHIVE')
    expect(json.keyword).toBe('ARCHIVE')
    expect(summary(json)).toEqual(['GET /api/v1/posts/archive/{year?} path+handler posts', 'DELETE /tags/archive path+handler tag-controller'])
    expect(json.routes[0]!.controller).toEqual({ name: 'posts', file: 'app/controllers/posts.ts' })
  })

  it('matches a middleware', async () => {
    expect(summary(await search('editor'))).toEqual(['POST /tags middleware TagController'])
    const admin = await search('auth:admin')
    expect(summary(admin)).toEqual(['DELETE /api/v1/posts/{id} middleware posts'])
  })

  it('matches the controller: its file or, for an object of handlers, its name', async () => {
    const byFile = await search('controllers/posts')
    // v1's eight routes and v2's three (its POST takes an Idempotency-Key).
    expect(byFile.routes).toHaveLength(11)
    expect(byFile.routes.every((route) => route.matched.includes('controller'))).toBe(true)
    const byName = await search('TagController')
    expect(summary(byName)).toEqual(['GET /tags controller TagController', 'POST /tags controller TagController'])
    expect(byName.routes[0]!.controller).toEqual({ name: 'TagController', file: 'app/controllers/tag-controller.ts' })
  })

  it('matches a handler; built-in routes (auth, health) have no controller', async () => {
    const json = await search('refresh')
    expect(summary(json)).toEqual(['POST /api/auth/refresh path+handler -'])
    expect(json.routes[0]).toMatchObject({ source: null, controller: null, middleware: [] })
  })

  it('prints a table with the matches, or says nothing matched', async () => {
    const found = await runSvc(['route:search', 'slug'], { cwd: app.dir })
    expect(found.exitCode).toBe(0)
    expect(found.stdout).toMatch(/GET\s+\/api\/v1\/posts\/\{slug\}\s+-\s+showPostBySlug\s+app\/controllers\/posts\.ts/)
    expect(found.stdout).toContain('1 route match "slug"')
    const none = await runSvc(['route:search', 'zebra'], { cwd: app.dir })
    expect(none).toMatchObject({ exitCode: 0, stdout: 'No route matches "zebra" (svc route:list shows them all).\n' })
    expect((await search('zebra')).routes).toEqual([])
  })

  it('needs its keyword', async () => {
    const { exitCode, stderr } = await runSvc(['route:search'], { cwd: app.dir })
    expect(exitCode).toBe(1)
    expect(stderr).toContain('E_BAD_ARGUMENTS')
  })
})

describe('svc route:rules', () => {
  let rules: RouteRulesJson
  beforeAll(async () => {
    rules = await svcJson<RouteRulesJson>(['route:rules'], { cwd: app.dir })
  })
  const rulesOf = (method: string, path: string) => rules.routes.find((route) => route.method === method && route.path === path)

  it('lists only the routes that declare a body or query schema, the app\'s and svc\'s auth routes and pages', () => {
    expect(rules.routes.map((route) => `${route.method} ${route.path}`)).toEqual([
      'POST /api/auth/register',
      'POST /api/auth/login',
      'POST /api/auth/refresh',
      'POST /api/auth/verify-email',
      'POST /api/auth/forgot-password',
      'POST /api/auth/reset-password',
      'GET /verify-email',
      'GET /reset-password',
      'GET /api/v1/posts',
      'GET /api/v1/posts/drafts',
      'POST /api/v1/posts',
      'PUT /api/v1/posts/{id}',
      'GET /api/v2/posts',
      'POST /api/v2/posts',
      'POST /tags',
    ])
  })

  it('gives each as JSON Schema in the OpenAPI 3.0 dialect (cli/schemas/to-json-schema.ts), with the route\'s handler and source', () => {
    expect(rulesOf('POST', '/api/v1/posts')).toEqual({
      method: 'POST',
      path: '/api/v1/posts',
      handler: 'createPost',
      source: { file: 'routes/api.ts', line: expect.any(Number), column: expect.any(Number) },
      body: toJsonSchema(PostInput, { direction: 'input' }).schema,
      query: null,
    })
    expect(rulesOf('PUT', '/api/v1/posts/{id}')!.body).toMatchObject({ properties: { published_at: { format: 'date-time', nullable: true } }, required: ['title'] })
    expect(rulesOf('GET', '/api/v2/posts')).toMatchObject({ body: null, query: { type: 'object', properties: { page: { type: 'string', pattern: '^\\d+$' } } } })
    expect(rulesOf('POST', '/api/auth/login')).toMatchObject({ source: null, body: { required: ['email', 'password'] } })
  })

  it('warns about what cannot be converted, naming route, part and field', () => {
    // The password confirmation is a named check (`confirmed`): listed under x-rules, not a warning.
    expect(rules.warnings).toEqual([
      { method: 'POST', path: '/tags', part: 'body', field: 'color', message: 'The "check" action cannot be converted to JSON Schema.' },
    ])
    expect(rulesOf('POST', '/api/auth/register')!.body).toMatchObject({ 'x-rules': ['confirmed'] })
    expect(rulesOf('POST', '/tags')!.body).toEqual({ type: 'object', properties: { name: { type: 'string', maxLength: 30 }, color: { type: 'string' } }, required: ['name'] })
  })

  it('prints each route\'s fields with their rules in words; the warnings go to stderr', async () => {
    const { exitCode, stdout, stderr } = await runSvc(['route:rules'], { cwd: app.dir })
    expect(exitCode).toBe(0)
    expect(stdout).toMatch(/POST \/api\/v1\/posts {2}createPost {2}routes\/api\.ts:\d+\n {2}body\n {4}FIELD +TYPE +RULES\n {4}title +string +required, 1-200 characters, visible\n {4}body +string +optional, at most 100000 characters, default "", without_nul\n {4}published_at +string \| null +optional, date-time, timestamp\n/)
    expect(stdout).toMatch(/ {4}password_confirmation +string +required, at least 1 character\n/)
    // The named checks JSON Schema cannot hold, in words too: a field's (visible text) and the body's (the confirmation).
    expect(stdout).toMatch(/POST \/api\/auth\/register[^\n]*\n {2}body\n(?: {4}[^\n]*\n)*? {4}password +string +required, 8-256 characters, visible\n(?: {4}[^\n]*\n)*? {4}and confirmed\n/)
    expect(stdout).toMatch(/GET \/api\/v2\/posts .*\n {2}query\n.*\n {4}page +string +optional, matches \/\^\\d\+\$\/, default "1"/)
    expect(stdout).not.toContain('warning')
    expect(stderr).toContain('warning: POST /tags, body field color: The "check" action cannot be converted to JSON Schema. (left out of the schema)')
    expect(stderr).not.toContain('/api/auth/register')
  })
})
