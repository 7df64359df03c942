/**
 * Where route:list says a route was defined, in a file loaded by jiti (as
 * `svc` loads an app): babel keeps a statement's line but not its column, and
 * Node 20 does not map `vm` stacks through source maps, so the raw frame of
 * the generated project's first route said `routes/api.ts:14:91` on a line of
 * 36 characters. The inline source map maps it back to the call as written,
 * and svc why maps an exception's location the same way.
 */
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { afterAll, expect, it } from 'vitest'
import type { RouteDefinition } from '../../framework/router/define-routes.ts'
import { readSourceLocation } from '../../framework/router/source-location.ts'
import { importWithJiti } from '../../cli/project/import-file.ts'
import { originalPosition, routeDefinitionPosition } from '../../cli/project/source-position.ts'
import { explainFailure } from '../../cli/trace/why.ts'
import { appFrame } from '../../framework/trace/record-builder.ts'
import { copyExampleApp } from '../helpers/cli.ts'
import type { TraceRecord } from '../../framework/trace/record.ts'

const dir = mkdtempSync(join(tmpdir(), 'svc-route-position-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const defineRoutesUrl = pathToFileURL(fileURLToPath(new URL('../../framework/router/define-routes.ts', import.meta.url))).href

// `svc new --example=Post`'s routes/api.ts as generated: the doc comment above the imports is what babel moves
// below them, pushing the first statements onto one line (so their columns change most).
const ROUTES = `/**
 * Every route here is under /api; the auth routes (/api/auth/register, login,
 * refresh, logout, me...) and the health probes (/health/live, /health/ready)
 * are built in. \`npx svc route:list\` shows them all.
 */
import { defineRoutes } from '${defineRoutesUrl}'
import * as greetings from '../app/greetings.ts'
import * as posts from '../app/posts.ts'
import { PostListQuery } from '../app/post-request.ts'
import { PostCollection } from '../app/post-resource.ts'

export default defineRoutes((r) => {
  r.version(1, (r) => {
    r.get('/hello', greetings.hello)
    // The body is checked against GreetingInput before greet() runs: a bad one is a 422.
    r.post('/greetings', greetings.greet)
    r.get('/posts', posts.listPosts).middleware(PostListQuery).middleware(PostCollection)
  })
})
`

const APP_FILES: Record<string, string> = {
  'greetings.ts': 'export const hello = (): string => "hi"\nexport const greet = (): string => "hey"\n',
  'posts.ts': 'export const listPosts = (): string[] => []\n',
  'post-request.ts': 'export const PostListQuery = "auth"\n',
  'post-resource.ts': 'export const PostCollection = "throttle:60,1"\n',
}

it('gives the line and column of the route call as written, for a file jiti transpiled', async () => {
  mkdirSync(join(dir, 'routes'))
  mkdirSync(join(dir, 'app'))
  for (const [name, text] of Object.entries(APP_FILES)) writeFileSync(join(dir, 'app', name), text)
  const file = join(dir, 'routes', 'api.ts')
  writeFileSync(file, ROUTES)
  const { default: definition } = (await importWithJiti(file)) as { default: RouteDefinition }
  const sources = definition.routes.map((route) => originalPosition(readSourceLocation(route.definedAt)!))
  // At the method's name, as V8 places a call: "    r.get(" has `get` at column 7.
  expect(sources).toEqual([
    { file, line: 14, column: 7 },
    { file, line: 16, column: 7 },
    { file, line: 17, column: 7 },
  ])
})

// A handler of the same shape that throws: the trace keeps the raw frame (babel's column), svc why maps it.
const CONTROLLER = `/**
 * Greetings: a doc comment above the imports, as make:controller writes one,
 * which babel moves below them onto the first statement's line.
 */
import * as path from 'node:path'
import * as os from 'node:os'

export const sep: string = path.sep + os.EOL
export function greet(): never { throw new Error('no greeting') }
`

it("places a handler's exception where it threw in the file as written (svc why)", async () => {
  const file = join(dir, 'app', 'throwing.ts')
  writeFileSync(file, CONTROLLER)
  const { greet } = (await importWithJiti(file)) as { greet: () => never }
  let stack = ''
  try {
    greet()
  } catch (error) {
    stack = (error as Error).stack ?? ''
  }
  const location = appFrame(stack)
  // A traced 500 (the extension's fixture), thrown where this handler threw.
  const traced = JSON.parse(readFileSync(fileURLToPath(new URL('../extension/fixtures/trace-500.json', import.meta.url)), 'utf8')) as TraceRecord
  // Taken now, after the file was written (a file modified after its trace is not mapped: below).
  const failure = explainFailure({ ...traced, timestamp: new Date().toISOString(), exception: { ...traced.exception!, location } }, null)!
  // `throw new Error(` : V8 places a `new` at its keyword, column 40 of line 9.
  expect(failure.location).toEqual({ file, line: 9, column: 40 })
  expect(failure.explanation).toContain(`${file}:9:40`)
  // The fixture's own time is before the file was written: the file changed since, so the position is as recorded.
  const before = explainFailure({ ...traced, exception: { ...traced.exception!, location } }, null)!
  expect(before.location).toEqual({ ...location, stale: true })
  expect(before.explanation).toContain('(as recorded; the file changed since the request)')
})

it("places every route of the blog example at its call's method name", async () => {
  // A copy, as svc loads an app: the example's own files are imported by other test files of this worker through
  // vitest's transform, whose stack positions jiti's source map does not describe.
  const blog = copyExampleApp('blog')
  afterAll(() => blog.remove())
  const file = join(blog.dir, 'routes', 'api.ts')
  const lines = readFileSync(file, 'utf8').split('\n')
  const { default: definition } = (await importWithJiti(file)) as { default: RouteDefinition }
  expect(definition.routes.length).toBeGreaterThan(5)
  for (const route of definition.routes) {
    const at = routeDefinitionPosition(readSourceLocation(route.definedAt)!)
    expect(at.file).toBe(file)
    // V8 places `r.delete(` at its parenthesis (delete is a keyword), every other call at the method's name: moved onto the name.
    expect(lines[at.line - 1]!.slice(at.column - 1), `${route.method} ${route.path}`).toMatch(/^(get|post|put|patch|delete|any)\(/)
  }
})
