/**
 * Layer 1: the language server's handlers as plain functions, on fixture
 * route files: the static reading of route files, diagnostics (duplicate,
 * shadowed, invalid constraint, unknown alias, syntax error), CodeLens with
 * trace counts, hover, and go-to-definition to the handler.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TextDocument } from 'vscode-languageserver-textdocument'
import type { RouteJson } from '../../cli/contract/routes.ts'
import type { TraceSummaryJson } from '../../cli/contract/traces.ts'
import { analyseRoutes } from '../../cli/lsp/analysis.ts'
import { codeLenses, definition, diagnostics, hover, resolveModule, traceCounts, type ServerState } from '../../cli/lsp/handlers.ts'
import { routeFilePrefix } from '../../framework/router/path-grammar.ts'
import { parseRouteFile, withLastParsed, type RouteFileModel } from '../../cli/lsp/route-file.ts'
import { replayArgs, traceListArgs, whyArgs } from '../../cli/lsp/server.ts'
import { CliCommandError, createCliRunner, parseCliError, readCliFailure } from '../../cli/lsp/cli-runner.ts'

const API_ROUTES = `import { defineRoutes } from 'svc'
import * as posts from '../app/controllers/posts.ts'
import { showUser as userHandler } from '../app/controllers/users.ts'

function home() {
  return { ok: true }
}

export default defineRoutes((r) => {
  r.get('/posts', posts.listPosts)
  r.get('/posts', posts.listPosts)
  r.get('/posts/{id}', posts.showPost)
  r.get('/posts/archive', posts.archive)
  r.get('/users/{id}', userHandler).where('id', /(\\d+/)
  r.get('/tags/{tag}', home).where('name', '[a-z]+')
  r.group({ prefix: 'admin', middleware: ['auth:admin', 'nosuch'] }, (r) => {
    r.delete('/posts/{id}', posts.deletePost).where('id', '\\\\d+')
    r.post('/posts', posts.createPost).middleware('throttle:10,1')
  })
  r.version(2, (r) => {
    r.get('/posts/{id}', posts.showPost).where({ id: /\\d+/ }).throttle(60, 1)
    r.get('/posts/{slug}', posts.showPost).where('slug', /[a-z-]+/)
  })
  r.get('/health/live', () => 'mine')
})
`

const WEB_ROUTES = `import { defineRoutes } from 'svc'

export default defineRoutes((r) => {
  r.get('/', function welcome() { return {} })
  r.get('/api/posts', () => 'web route under /api')
})
`

const POSTS_CONTROLLER = `export function listPosts() { return [] }
export async function showPost() { return {} }
export const archive = async () => []
export function deletePost() {}
export function createPost() {}
`
const USERS_CONTROLLER = `function show() { return {} }
export { show as showUser }
`

let dir: string
let apiFile: string
let webFile: string

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-lsp-handlers-'))
  mkdirSync(join(dir, 'routes'))
  mkdirSync(join(dir, 'app', 'controllers'), { recursive: true })
  apiFile = join(dir, 'routes', 'api.ts')
  webFile = join(dir, 'routes', 'web.ts')
  writeFileSync(apiFile, API_ROUTES)
  writeFileSync(webFile, WEB_ROUTES)
  writeFileSync(join(dir, 'app', 'controllers', 'posts.ts'), POSTS_CONTROLLER)
  writeFileSync(join(dir, 'app', 'controllers', 'users.ts'), USERS_CONTROLLER)
})

afterAll(() => rmSync(dir, { recursive: true, force: true }))

function route(method: RouteJson['method'], path: string, overrides: Partial<RouteJson> = {}): RouteJson {
  return { method, path, params: [], middleware: [], handler: 'h', source: { file: 'routes/api.ts', line: 1, column: 1 }, group: null, version: null, schemas: { body: false, query: false, response: false }, ...overrides }
}

function trace(route: string | null, status: number, overrides: Partial<TraceSummaryJson> = {}): TraceSummaryJson {
  return {
    trace_id: `svc_${Math.random().toString(16).slice(2)}`,
    method: 'GET',
    path: route ?? '/x',
    query: '',
    route,
    status_code: status,
    duration_ms: 3,
    ip: '127.0.0.1',
    timestamp: new Date().toISOString(),
    user_id: null,
    exception: status >= 400 ? 'HttpError' : null,
    error_message: status >= 400 ? 'Failed' : null,
    errors: null,
    query_count: 0,
    n_plus_one: false,
    replay_of: null,
    unverified_replay_of: null,
    ...overrides,
  }
}

function state(overrides: Partial<ServerState> = {}): ServerState {
  const models = new Map<string, RouteFileModel>()
  return {
    appDir: dir,
    routeFiles: [apiFile, webFile],
    routeTable: null,
    appError: null,
    traces: null,
    aliasErrors: new Map(),
    model: (file) => {
      if (!models.has(file)) models.set(file, parseRouteFile(readFileSync(file, 'utf8'), routeFilePrefix(file)))
      return models.get(file)!
    },
    readFile: (file) => readFileSync(file, 'utf8'),
    ...overrides,
  }
}

function documentOf(file: string): TextDocument {
  return TextDocument.create(pathToFileURL(file).href, 'typescript', 1, readFileSync(file, 'utf8'))
}

/** The 0-based line of the first line containing `text` in the API fixture. */
function lineOf(text: string, source = API_ROUTES): number {
  const line = source.split('\n').findIndex((candidate) => candidate.includes(text))
  if (line === -1) throw new Error(`fixture has no line with ${text}`)
  return line
}

describe('reading route files', () => {
  it('finds every route with its full path, group middleware, constraints and handler', () => {
    const model = parseRouteFile(API_ROUTES, '/api')
    expect(model.syntaxError).toBeNull()
    expect(model.routes.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /api/posts',
      'GET /api/posts',
      'GET /api/posts/{id}',
      'GET /api/posts/archive',
      'GET /api/users/{id}',
      'GET /api/tags/{tag}',
      'DELETE /api/admin/posts/{id}',
      'POST /api/admin/posts',
      'GET /api/v2/posts/{id}',
      'GET /api/v2/posts/{slug}',
      'GET /api/health/live',
    ])
    const create = model.routes[7]!
    expect(create.middleware.map((m) => [m.name, m.inherited])).toEqual([
      ['auth:admin', true],
      ['nosuch', true],
      ['throttle:10,1', false],
    ])
    expect(create.group).toBe('/admin')
    const v2 = model.routes[8]!
    expect(v2.version).toBe(2)
    expect(v2.constraints).toMatchObject([{ param: 'id', pattern: '\\d+', error: null }])
    expect(v2.middleware.map((m) => m.name)).toEqual(['throttle:60,1'])
    expect(model.routes[4]!.constraints[0]!.error).toMatch(/Invalid regular expression|Unterminated group/)
    expect(model.routes[0]!.handler).toEqual({ kind: 'namespace', namespace: 'posts', name: 'listPosts', module: '../app/controllers/posts.ts' })
    expect(model.routes[4]!.handler).toEqual({ kind: 'identifier', name: 'userHandler', module: '../app/controllers/users.ts', importedName: 'showUser' })
    expect(model.routes[0]!.callRange.start).toEqual({ line: lineOf("r.get('/posts', posts.listPosts)"), character: 2 })
  })

  it('gives web.ts routes no prefix, and reads the real example app like the framework does', () => {
    expect(routeFilePrefix('/x/routes/web.ts')).toBe('/')
    expect(routeFilePrefix('/x/routes/api.ts')).toBe('/api')
    const example = parseRouteFile(readFileSync('examples/blog/routes/api.ts', 'utf8'), '/api')
    const paths = example.routes.map((r) => `${r.method} ${r.path}`)
    expect(paths).toContain('GET /api/v1/posts/{id}')
    expect(paths).toContain('GET /api/v2/posts/{id}')
    expect(paths).toContain('GET /api/v1/posts/archive/{year?}')
  })

  it('reports a syntax error with its place instead of throwing', () => {
    const model = parseRouteFile(`export default defineRoutes((r) => {\n  r.get('/a', h\n})\n`, '/api')
    expect(model.syntaxError).not.toBeNull()
    expect(model.syntaxError!.range.start.line).toBeGreaterThanOrEqual(1)
  })
})

describe('diagnostics', () => {
  it('reports duplicates, shadowed routes, invalid constraints, unknown aliases and constraints naming no parameter', () => {
    const aliasErrors = new Map<string, string | null>([
      ['auth:admin', null],
      ['throttle:10,1', null],
      ['throttle:60,1', null],
      ['nosuch', 'Unknown middleware alias "nosuch" (known aliases: auth, throttle)'],
    ])
    const found = diagnostics(state({ aliasErrors, routeTable: [route('GET', '/health/live', { source: null })] }), documentOf(apiFile))
    const summary = found.map((d) => [d.code, d.range.start.line, d.severity])
    expect(summary).toContainEqual(['duplicate-route', lineOf("r.get('/posts', posts.listPosts)") + 1, 1])
    expect(summary).toContainEqual(['shadowed-route', lineOf("r.get('/posts/archive'"), 2])
    expect(summary).toContainEqual(['invalid-constraint', lineOf("r.get('/users/{id}'"), 1])
    expect(summary).toContainEqual(['unknown-constraint-param', lineOf("r.get('/tags/{tag}'"), 1])
    expect(summary).toContainEqual(['unknown-middleware', lineOf("'nosuch'"), 1])
    const duplicate = found.find((d) => d.code === 'duplicate-route')!
    expect(duplicate.message).toContain('GET /api/posts')
    expect(duplicate.relatedInformation?.[0]?.location.range.start.line).toBe(lineOf("r.get('/posts', posts.listPosts)"))
    const shadowed = found.find((d) => d.code === 'shadowed-route')!
    expect(shadowed.message).toContain('GET /api/posts/{id}')
    // The group's unknown alias is reported once, not for each route of the group.
    expect(found.filter((d) => d.code === 'unknown-middleware')).toHaveLength(1)
    // Distinct constraints do not shadow each other (v2 {id} digits vs {slug} letters), and known aliases are fine.
    expect(summary.filter(([, line]) => line === lineOf("r.get('/posts/{slug}'"))).toEqual([])
    expect(summary.filter(([code]) => code === 'invalid-middleware')).toEqual([])
  })

  it('reports a web route shadowed by an api route, and a route shadowed by a built-in one', () => {
    const webDiagnostics = diagnostics(state(), documentOf(webFile))
    expect(webDiagnostics.map((d) => d.code)).toEqual(['duplicate-route'])
    expect(webDiagnostics[0]!.message).toContain('api.ts')

    const builtins = [route('GET', '/api/users/{id}', { source: null })]
    const found = analyseRoutes({ files: [{ file: apiFile, model: parseRouteFile(`defineRoutes((r) => { r.get('/users/me', h) })`, '/api') }], builtins, aliasErrors: new Map() })
    expect(found).toMatchObject([{ code: 'shadowed-route', message: expect.stringContaining('the built-in routes') }])
  })

  it('understands optional parameters and constrained parameters when deciding what shadows what', () => {
    const cases: Array<[string, number]> = [
      [`r.get('/a/{b?}', h); r.get('/a', h)`, 1], // /a/{b?} already answers /a
      [`r.get('/a', h); r.get('/a/{b?}', h)`, 0], // /a/{b} still reachable
      [`r.get('/a/{id}', h).where('id', /\\d+/); r.get('/a/new', h)`, 0], // "new" fails \\d+
      [`r.get('/a/{id}', h).where('id', /\\d+/); r.get('/a/42', h)`, 1],
      [`r.any('/a', h); r.post('/a', h)`, 1],
      [`r.post('/a', h); r.get('/a', h)`, 0],
    ]
    for (const [body, expected] of cases) {
      const found = analyseRoutes({ files: [{ file: apiFile, model: parseRouteFile(`defineRoutes((r) => { ${body} })`, '/') }], builtins: [], aliasErrors: new Map() })
      expect(found.length, body).toBe(expected)
    }
  })

  it('shows why the app does not load when nothing else explains it, on the first route file', () => {
    const clean = `defineRoutes((r) => { r.get('/a', h) })`
    writeFileSync(join(dir, 'routes', 'clean.ts'), clean)
    const cleanFile = join(dir, 'routes', 'clean.ts')
    const found = diagnostics(
      state({ routeFiles: [cleanFile], appError: { code: 'E_APP_LOAD', message: 'Cannot load the app: boom', hint: 'fix it' } }),
      documentOf(cleanFile),
    )
    expect(found).toMatchObject([{ code: 'app-load-error', message: 'Cannot load the app: boom (fix: fix it)' }])
  })

  it('leaves files that are not route files alone', () => {
    const other = join(dir, 'app', 'controllers', 'posts.ts')
    expect(diagnostics(state(), documentOf(other))).toEqual([])
    expect(codeLenses(state(), documentOf(other))).toEqual([])
  })
})

describe('CodeLens', () => {
  it('puts the full path, middleware and trace/error counts above each route, with actions', () => {
    const routeTable = [route('DELETE', '/api/admin/posts/{id}', { middleware: ['auth:admin', 'nosuch'] })]
    const traces = [
      trace('/api/admin/posts/{id}', 204, { method: 'DELETE' }),
      trace('/api/admin/posts/{id}', 403, { method: 'DELETE' }), // a 4xx is not an error (as --error counts)
      trace('/api/admin/posts/{id}', 500, { method: 'DELETE', exception: 'TypeError' }),
      trace('/api/admin/posts/{id}', 200, { method: 'GET' }), // another method: not this route's
      trace('/api/posts', 200),
      trace('/api/admin/posts/{id}', 500, { method: 'DELETE', replay_of: 'svc_original' }), // a replay: counted apart
    ]
    const lenses = codeLenses(state({ routeTable, traces }), documentOf(apiFile))
    const line = lineOf("r.delete('/posts/{id}'")
    const atDelete = lenses.filter((lens) => lens.range.start.line === line)
    expect(atDelete.map((lens) => lens.command!.title)).toEqual(['DELETE /api/admin/posts/{id} · auth:admin, nosuch · 3 traces, 1 error · 1 replay', 'Send request'])
    expect(atDelete[0]!.command).toMatchObject({ command: 'svc.openRouteTraces', arguments: [{ method: 'DELETE', path: '/api/admin/posts/{id}' }] })
    expect(atDelete[1]!.command).toMatchObject({ command: 'svc.sendRequest' })
    // Without a route table the statically read middleware is shown; one trace, no error.
    const first = lenses.find((lens) => lens.range.start.line === lineOf("r.get('/posts', posts.listPosts)"))!
    expect(first.command!.title).toBe('GET /api/posts · 1 trace')
    expect(lenses).toHaveLength(2 * 11)
  })

  it('omits the counts when there is no trace store', () => {
    const lenses = codeLenses(state({ traces: null }), documentOf(webFile))
    expect(lenses.map((lens) => lens.command!.title)).toEqual(['GET /', 'Send request', 'GET /api/posts', 'Send request'])
  })

  it('counts traces of an ANY route for every method, and HEAD for GET routes', () => {
    const traces = [trace('/a', 200, { method: 'POST' }), trace('/a', 200, { method: 'HEAD' }), trace('/a', 500, { method: 'GET', exception: null })]
    expect(traceCounts(state({ traces }), 'ANY', '/a')).toEqual({ traces: 3, errors: 1, replays: 0 })
    expect(traceCounts(state({ traces }), 'GET', '/a')).toEqual({ traces: 2, errors: 1, replays: 0 })
  })
})

describe('hover and go to definition', () => {
  it('hovers a route with its full path, parameters with constraints and the middleware chain', () => {
    const line = lineOf("r.get('/posts/{id}', posts.showPost).where({ id:")
    const routeTable = [route('GET', '/api/v2/posts/{id}', { params: [{ name: 'id', optional: false, pattern: '^(?:\\d+)$' }], middleware: ['throttle:60,1'], handler: 'showPost' })]
    const result = hover(state({ routeTable, traces: [trace('/api/v2/posts/{id}', 200)] }), documentOf(apiFile), { position: { line, character: 10 } })
    const text = (result!.contents as { value: string }).value
    expect(text).toContain('**GET** `/api/v2/posts/{id}`')
    expect(text).toContain('`{id}`: `^(?:\\d+)$`')
    expect(text).toContain('Middleware: `throttle:60,1` → handler')
    expect(text).toContain('Handler: `showPost`')
    expect(text).toContain('Traces: 1 recent, 0 errors')
    expect(hover(state(), documentOf(apiFile), { position: { line: 0, character: 0 } })).toBeNull()
  })

  it('goes from a route to its handler: namespace import, renamed named import, local function, inline function', () => {
    const at = (text: string, character = 6) => definition(state(), documentOf(apiFile), { position: { line: lineOf(text), character } })
    const posts = pathToFileURL(join(dir, 'app', 'controllers', 'posts.ts')).href
    expect(at("r.get('/posts/{id}', posts.showPost)")).toEqual({ uri: posts, range: { start: { line: 1, character: 22 }, end: { line: 1, character: 30 } } })
    expect(at("r.get('/posts/archive'")).toMatchObject({ uri: posts, range: { start: { line: 2 } } })
    expect(at("r.get('/users/{id}'")).toMatchObject({ uri: pathToFileURL(join(dir, 'app', 'controllers', 'users.ts')).href, range: { start: { line: 0, character: 9 } } })
    expect(at("r.get('/tags/{tag}'")).toMatchObject({ uri: pathToFileURL(apiFile).href, range: { start: { line: lineOf('function home()') } } })
    expect(at("r.get('/health/live'")).toMatchObject({ uri: pathToFileURL(apiFile).href, range: { start: { line: lineOf("r.get('/health/live'") } } })
  })

  it('resolves imports the way the loader does', () => {
    expect(resolveModule(apiFile, '../app/controllers/posts.ts')).toBe(join(dir, 'app', 'controllers', 'posts.ts'))
    expect(resolveModule(apiFile, '../app/controllers/posts.js')).toBe(join(dir, 'app', 'controllers', 'posts.ts'))
    expect(resolveModule(apiFile, '../app/controllers/posts')).toBe(join(dir, 'app', 'controllers', 'posts.ts'))
    expect(resolveModule(apiFile, 'svc')).toBeNull()
  })
})

describe('custom request arguments', () => {
  it('maps trace filters to the CLI flags, errors-only to log:trace --error', () => {
    expect(traceListArgs({})).toEqual(['trace:list'])
    expect(traceListArgs({ status: '4xx', method: 'GET', path: '/api/*', slow: 200, limit: 50 })).toEqual(['trace:list', '--status=4xx', '--method=GET', '--path=/api/*', '--slow=200', '--limit=50'])
    expect(traceListArgs({ error: true, since: '1h' })).toEqual(['log:trace', '--error', '--since=1h'])
    // A route's traces: its own (--route), and a GET route's HEAD requests with them.
    expect(traceListArgs({ path: '/api/v1/posts/*', route: '/api/v1/posts/{id}', method: 'GET', limit: 50 })).toEqual([
      'trace:list', '--method=GET,HEAD', '--path=/api/v1/posts/*', '--route=/api/v1/posts/{id}', '--limit=50',
    ])
    expect(traceListArgs({ route: '/api/v1/posts/{id}', method: 'PUT' })).toEqual(['trace:list', '--method=PUT', '--route=/api/v1/posts/{id}'])
    expect(replayArgs({ id: 'svc_abc', diff: true, force: true })).toEqual(['replay', 'svc_abc', '--diff', '--force'])
    expect(replayArgs({ id: 'svc_abc', format: 'curl' })).toEqual(['replay', 'svc_abc', '--format=curl'])
    expect(replayArgs({ id: 'svc_abc', sendRedacted: true })).toEqual(['replay', 'svc_abc', '--send-redacted'])
    // "Without a token": the CLI would otherwise sign in as the user who made the request.
    expect(replayArgs({ id: 'svc_abc', anonymous: true })).toEqual(['replay', 'svc_abc', '--anonymous'])
    expect(replayArgs({ id: 'svc_abc', as: 'ada@example.com', anonymous: true })).toEqual(['replay', 'svc_abc', '--as=ada@example.com'])
    expect(() => replayArgs({ id: '--force' })).toThrow(/trace id/)
    expect(traceListArgs({ ignore: ['/health/*', '', 3 as unknown as string] })).toEqual(['trace:list', '--ignore=/health/*'])
    // Values that look like options stay values: each is written --name=value.
    expect(replayArgs({ id: 'svc_abc', as: 'ada@example.com', header: ['Authorization: Bearer x', '--force'], url: 'http://127.0.0.1:9000' })).toEqual([
      'replay', 'svc_abc', '--as=ada@example.com', '--header=Authorization: Bearer x', '--header=--force', '--url=http://127.0.0.1:9000',
    ])
    expect(whyArgs({ id: 'svc_abc', method: 'get', path: '/api/v1/posts/-1' })).toEqual(['api:why', '--id=svc_abc', '--', 'GET', '/api/v1/posts/-1'])
    expect(() => whyArgs({ id: 'svc_abc', method: 'GET', path: '--fix' })).toThrow(/method and a path/)
  })

  it('reads the CLI error from stderr', () => {
    expect(parseCliError('error [E_NO_TRACE]: No trace svc_x\n  fix: svc trace:list shows the recent ones\n', 'x')).toEqual({ code: 'E_NO_TRACE', message: 'No trace svc_x', hint: 'svc trace:list shows the recent ones' })
    expect(parseCliError('boom\n', 'fallback')).toEqual({ code: 'E_CLI', message: 'boom', hint: null })
  })

  it('reads the CLI error from its --json error document, and from stderr only when there is none', () => {
    // The document wins over stderr, whose first lines may be notes that look like anything.
    const stderr = 'error [E_OTHER]: a note printed before the failure\nerror [E_TRACE_NOT_FOUND]: No trace with id "x"\n'
    const document = { error: { code: 'E_TRACE_NOT_FOUND', message: 'No trace with id "x"', fix: 'svc trace:list shows recent ones', exit_code: 1 } }
    expect(readCliFailure(`${JSON.stringify(document, null, 2)}\n`, stderr, 'x')).toEqual({ code: 'E_TRACE_NOT_FOUND', message: 'No trace with id "x"', hint: 'svc trace:list shows recent ones' })
    expect(readCliFailure(JSON.stringify({ error: { ...document.error, fix: null } }), '', 'x')).toEqual({ code: 'E_TRACE_NOT_FOUND', message: 'No trace with id "x"', hint: null })
    // An older svc (nothing on stdout), a crash, or a success document: stderr, as before.
    expect(readCliFailure('', 'error [E_NO_APP]: No app here\n  fix: svc new\n', 'x')).toEqual({ code: 'E_NO_APP', message: 'No app here', hint: 'svc new' })
    expect(readCliFailure('{"routes": []}', 'boom\n', 'x')).toEqual({ code: 'E_CLI', message: 'boom', hint: null })
    expect(readCliFailure('{"error": "text"}', '', 'svc x failed (exit 1)')).toEqual({ code: 'E_CLI', message: 'svc x failed (exit 1)', hint: null })
  })
})

describe('a route file saved with a syntax error', () => {
  const project = mkdtempSync(join(tmpdir(), 'svc-lsp-parse-'))
  const broken = join(project, 'routes', 'api.ts')
  afterAll(() => rmSync(project, { recursive: true, force: true }))

  it('says where the error is, in the Routes view and as a diagnostic on that line of that file', async () => {
    mkdirSync(join(project, 'routes'))
    writeFileSync(broken, `import { defineRoutes } from 'svc'\n\nexport default defineRoutes((r) => {\n  r.get('/a', () => ({})) ) )(\n})\n`)
    const runner = createCliRunner({ command: [process.execPath, join(process.cwd(), 'dist', 'cli', 'bin.js')], root: project })
    const failure = await runner.json(['route:list']).then(
      () => expect.fail('route:list loaded a broken route file'),
      (error: CliCommandError) => error.toJSON(),
    )
    expect(failure.code).toBe('E_APP_LOAD')
    // One line (a tree item shows no more), with the location the parser gave.
    expect(failure.message).toMatch(/^Cannot load the app: ParseError: .* \S*routes\/api\.ts:4:\d+$/)

    const column = Number(/:4:(\d+)$/.exec(failure.message)![1])
    const found = diagnostics(
      state({ appDir: project, routeFiles: [broken], appError: failure, model: () => null }),
      documentOf(broken),
    )
    expect(found).toMatchObject([{ code: 'app-load-error', range: { start: { line: 3, character: column - 1 } } }])
    expect(found[0]!.message).toContain(`routes/api.ts:4:${column}`)
  })

  it('keeps the location line under the message when the CLI printed it on stderr only', () => {
    const stderr = `error [E_APP_LOAD]: Cannot load the app: ParseError: Missing semicolon.  \n ${broken}:4:25\n  fix: fix the error above\n`
    expect(readCliFailure('', stderr, 'x')).toEqual({ code: 'E_APP_LOAD', message: `Cannot load the app: ParseError: Missing semicolon. ${broken}:4:25`, hint: 'fix the error above' })
  })
})

describe('a route file being typed with a syntax error', () => {
  it('keeps the CodeLens of the last text that parsed, at their old lines, and still reports the error', () => {
    const good = parseRouteFile(API_ROUTES, '/api')
    const typing = API_ROUTES.replace("r.get('/posts/{id}', posts.showPost)", "r.get('/posts/{id}', posts.showPost) ) )(")
    const broken = parseRouteFile(typing, '/api')
    expect(broken.syntaxError).not.toBeNull()

    const before = codeLenses(state({ model: () => good }), documentOf(apiFile))
    expect(before.length).toBeGreaterThan(0)
    const kept = withLastParsed(broken, good)
    expect(codeLenses(state({ model: () => kept }), documentOf(apiFile))).toEqual(before)
    expect(diagnostics(state({ model: (file) => (file === apiFile ? kept : null) }), documentOf(apiFile))).toContainEqual(
      expect.objectContaining({ code: 'syntax-error' }),
    )
    // Once it parses again, the new text's model is the one used.
    expect(withLastParsed(good, good)).toBe(good)
    expect(withLastParsed(broken, undefined)).toBe(broken)
  })
})
