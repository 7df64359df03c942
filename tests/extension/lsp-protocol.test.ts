/**
 * Layer 2: the protocol over stdio. Spawns the built `svc lsp --stdio` in a
 * copy of the blog app with recorded traffic and talks vscode-jsonrpc to it:
 * initialize, open a route file, receive diagnostics, CodeLens, hover,
 * definition, the custom requests (checked against the CLI's own output and
 * the contract's schemas), and the pushes when route files or the trace
 * store change.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMessageConnection, ResponseError, StreamMessageReader, StreamMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node'
import { contractValidator } from '../helpers/contract.ts'
import { SVC_BIN, startSvc, waitForLine } from '../helpers/cli.ts'
import { svcJson } from '../helpers/run-svc.ts'
import { recordedApp, type RecordedApp } from './helpers.ts'

interface PublishedDiagnostics {
  uri: string
  diagnostics: Array<{ code: string; message: string; range: { start: { line: number } }; severity: number }>
}

let app: RecordedApp
let server: ChildProcessWithoutNullStreams
let connection: MessageConnection
let stderr = ''
const published: PublishedDiagnostics[] = []
const notifications: string[] = []

function apiUri(): string {
  return pathToFileURL(join(app.dir, 'routes', 'api.ts')).href
}

/** Resolves when `predicate` holds, checking as messages arrive (bounded wait). */
async function until<T>(what: string, check: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\nserver stderr: ${stderr}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

function latestDiagnostics(uri: string): PublishedDiagnostics | undefined {
  return published.filter((entry) => entry.uri === uri).at(-1)
}

beforeAll(async () => {
  app = await recordedApp()
  server = spawn(process.execPath, [SVC_BIN, 'lsp', '--stdio'], { cwd: app.dir, env: { ...process.env, NO_COLOR: '1' } })
  server.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  connection = createMessageConnection(new StreamMessageReader(server.stdout), new StreamMessageWriter(server.stdin))
  connection.onNotification('textDocument/publishDiagnostics', (params: PublishedDiagnostics) => void published.push(params))
  connection.onNotification((method: string) => void notifications.push(method))
  connection.onRequest('workspace/codeLens/refresh', () => null)
  connection.listen()
  const result = await connection.sendRequest<{ capabilities: Record<string, unknown>; serverInfo: { name: string } }>('initialize', {
    processId: process.pid,
    rootUri: pathToFileURL(app.dir).href,
    workspaceFolders: [{ uri: pathToFileURL(app.dir).href, name: 'blog' }],
    capabilities: { workspace: { codeLens: { refreshSupport: true } } },
  })
  expect(result.serverInfo.name).toBe('svc')
  expect(result.capabilities).toMatchObject({ codeLensProvider: {}, hoverProvider: true, definitionProvider: true })
  await connection.sendNotification('initialized', {})
}, 120_000)

afterAll(async () => {
  if (connection) {
    await connection.sendRequest('shutdown').catch(() => undefined)
    await connection.sendNotification('exit').catch(() => undefined)
  }
  if (server && server.exitCode === null) {
    await Promise.race([new Promise((resolve) => server.once('close', resolve)), new Promise((resolve) => setTimeout(resolve, 5000))])
    if (server.exitCode === null) server.kill('SIGKILL')
  }
  connection?.dispose()
  app?.remove()
})

describe('svc lsp --stdio', () => {
  it('publishes diagnostics for the route files once started (none for the clean example)', async () => {
    const initial = await until('the first diagnostics of api.ts', () => latestDiagnostics(apiUri()))
    expect(initial.diagnostics).toEqual([])
  })

  it('gives CodeLens with trace counts, hover and go-to-definition on an open route file', async () => {
    const text = readFileSync(join(app.dir, 'routes', 'api.ts'), 'utf8')
    // The recent traces are loaded once the server has started.
    await until('the recorded traces in svc/status', async () => (await connection.sendRequest<{ traces: number | null }>('svc/status', {})).traces === app.sent.length)
    await connection.sendNotification('textDocument/didOpen', { textDocument: { uri: apiUri(), languageId: 'typescript', version: 1, text } })
    const lenses = await connection.sendRequest<Array<{ range: { start: { line: number } }; command: { title: string; command: string } }>>('textDocument/codeLens', { textDocument: { uri: apiUri() } })
    const titles = lenses.map((lens) => lens.command.title)
    // Two requests matched /api/v1/posts/{id}: /1 (200) and /999 (404: not an error, as --error counts).
    expect(titles).toContain('GET /api/v1/posts/{id} · 2 traces')
    const webUri = pathToFileURL(join(app.dir, 'routes', 'web.ts')).href
    await connection.sendNotification('textDocument/didOpen', { textDocument: { uri: webUri, languageId: 'typescript', version: 1, text: readFileSync(join(app.dir, 'routes', 'web.ts'), 'utf8') } })
    const webLenses = await connection.sendRequest<Array<{ command: { title: string } }>>('textDocument/codeLens', { textDocument: { uri: webUri } })
    expect(webLenses.map((lens) => lens.command.title)).toEqual(['GET / · 1 trace', 'Send request', 'GET /boom · 1 trace, 1 error', 'Send request', 'GET /loop · 0 traces', 'Send request'])
    expect(titles).toContain('GET /api/v1/posts · 1 trace')
    expect(titles.filter((title) => title === 'Send request')).toHaveLength(lenses.length / 2)

    const line = text.split('\n').findIndex((candidate) => candidate.includes("r.get('/posts/{id}', posts.showPost)"))
    const hover = await connection.sendRequest<{ contents: { value: string } }>('textDocument/hover', { textDocument: { uri: apiUri() }, position: { line, character: 8 } })
    expect(hover.contents.value).toContain('**GET** `/api/v1/posts/{id}`')
    expect(hover.contents.value).toContain('`{id}`')

    const target = await connection.sendRequest<{ uri: string; range: { start: { line: number } } }>('textDocument/definition', { textDocument: { uri: apiUri() }, position: { line, character: 8 } })
    expect(target.uri).toBe(pathToFileURL(join(app.dir, 'app', 'controllers', 'posts.ts')).href)
    const controller = readFileSync(join(app.dir, 'app', 'controllers', 'posts.ts'), 'utf8').split('\n')
    expect(controller[target.range.start.line]).toContain('export async function showPost')
  })

  it('answers the custom requests with exactly what the CLI prints', async () => {
    const cwd = app.dir
    const routes = await connection.sendRequest('svc/routes', {})
    expect(routes).toEqual(await svcJson(['route:list'], { cwd }))
    expect(contractValidator('RouteListJson')(routes)).toBe(true)

    const traces = await connection.sendRequest<{ traces: Array<{ trace_id: string; status_code: number; path: string }> }>('svc/traces', {})
    expect(traces).toEqual(await svcJson(['trace:list'], { cwd }))
    expect(contractValidator('TraceListJson')(traces)).toBe(true)
    expect(traces.traces).toHaveLength(app.sent.length)

    const clientErrors = await connection.sendRequest<{ traces: Array<{ status_code: number }> }>('svc/traces', { status: '4xx' })
    expect(clientErrors.traces.map((t) => t.status_code)).toEqual([404, 404])
    const errorsOnly = await connection.sendRequest<{ traces: Array<{ status_code: number; path: string }> }>('svc/traces', { error: true })
    expect(errorsOnly).toEqual(await svcJson(['log:trace', '--error'], { cwd }))
    expect(errorsOnly.traces.map((t) => `${t.status_code} ${t.path}`)).toEqual(['500 /boom'])

    const id = app.sent.find((request) => request.path === '/api/v1/posts/1')!.traceId!
    const trace = await connection.sendRequest('svc/trace', { id })
    expect(trace).toEqual(await svcJson(['log:trace', id], { cwd }))
    expect(contractValidator('TraceJson')(trace)).toBe(true)

    const replay = await connection.sendRequest<{ dry_run: boolean; response: { status: number }; diff: { changed: boolean } }>('svc/replay', { id, diff: true })
    expect(contractValidator('ReplayJson')(replay), JSON.stringify(contractValidator('ReplayJson').errors)).toBe(true)
    expect(replay.dry_run).toBe(false)
    expect(replay.response.status).toBe(200)
    expect(replay.diff).not.toBeNull()

    const curl = await connection.sendRequest<{ command: string }>('svc/replay', { id, format: 'curl' })
    expect(curl.command).toMatch(/^curl .*\/api\/v1\/posts\/1/)

    const status = await connection.sendRequest<{ state: string; routes: number; traces: number }>('svc/status', {})
    expect(contractValidator('ServerStatusJson')(status)).toBe(true)
    expect(status).toMatchObject({ state: 'ready', routes: (routes as { routes: unknown[] }).routes.length })
    // The replays above recorded traces of their own: the counts follow the store, replays counted apart.
    const stored = (await svcJson<{ traces: unknown[] }>(['trace:list', '--limit=1000'], { cwd })).traces.length
    await until(`svc/status with ${stored} traces, 1 replay`, async () => {
      const current = await connection.sendRequest<{ traces: number; replays: number }>('svc/status', {})
      return current.traces === stored && current.replays === 1
    })

    const why = await connection.sendRequest<{ failure: { kind: string } }>('svc/why', { id: app.sent.find((request) => request.path === '/boom')!.traceId, method: 'GET', path: '/boom' })
    expect(why).toEqual(await svcJson(['api:why', 'GET', '/boom', '--id', app.sent.find((request) => request.path === '/boom')!.traceId!], { cwd }))
    expect(contractValidator('WhyJson')(why)).toBe(true)
    expect(why.failure.kind).toBe('exception')
    const stats = await connection.sendRequest('svc/stats', { days: 1 })
    expect(contractValidator('StatsJson')(stats)).toBe(true)
    expect(stats).toMatchObject({ days: 1, total: stored })
    const top = await connection.sendRequest<{ endpoints: unknown[] }>('svc/top', { days: 1, limit: 3 })
    expect(contractValidator('TopJson')(top)).toBe(true)
    expect(top.endpoints).toHaveLength(3)
    const users = await connection.sendRequest('svc/traceUsers', {})
    expect(users).toEqual(await svcJson(['trace:users'], { cwd }))
  }, 120_000)

  it('fails a custom request with the CLI error code and hint', async () => {
    const failure = await connection.sendRequest('svc/trace', { id: 'svc_0000' }).then(
      () => null,
      (error: unknown) => error,
    )
    expect(failure).toBeInstanceOf(ResponseError)
    expect((failure as ResponseError<{ code: string; message: string }>).data?.code).toMatch(/^E_/)
    const bad = await connection.sendRequest('svc/replay', { id: '--force' }).then(
      () => null,
      (error: unknown) => error as ResponseError<{ code: string }>,
    )
    expect(bad?.data?.code).toBe('E_BAD_ARGUMENTS')
  })

  it('diagnoses an edited (unsaved) route file: duplicate route and unknown alias', async () => {
    const text = readFileSync(join(app.dir, 'routes', 'api.ts'), 'utf8').replace(
      "r.get('/posts', posts.listPosts)",
      "r.get('/posts', posts.listPosts)\n    r.get('/posts', posts.listPosts).middleware('nosuch')",
    )
    await connection.sendNotification('textDocument/didChange', { textDocument: { uri: apiUri(), version: 2 }, contentChanges: [{ text }] })
    const found = await until('duplicate and unknown alias diagnostics', () => {
      const latest = latestDiagnostics(apiUri())
      const codes = latest?.diagnostics.map((d) => d.code) ?? []
      return codes.includes('duplicate-route') && codes.includes('unknown-middleware') ? latest : undefined
    })
    const unknown = found.diagnostics.find((d) => d.code === 'unknown-middleware')!
    expect(unknown.message).toMatch(/Unknown middleware alias "nosuch"/)
    expect(unknown.severity).toBe(1)
    // Back to the saved text: the diagnostics clear.
    await connection.sendNotification('textDocument/didChange', { textDocument: { uri: apiUri(), version: 3 }, contentChanges: [{ text: readFileSync(join(app.dir, 'routes', 'api.ts'), 'utf8') }] })
    await until('cleared diagnostics', () => latestDiagnostics(apiUri())?.diagnostics.length === 0)
  }, 60_000)

  it('pushes svc/routesChanged when a route file changes on disk, with the new route table', async () => {
    const before = notifications.filter((method) => method === 'svc/routesChanged').length
    const file = join(app.dir, 'routes', 'web.ts')
    app.write('routes/web.ts', readFileSync(file, 'utf8').replace("r.get('/', function welcome()", "r.get('/about', () => ({ about: true }))\n  r.get('/', function welcome()"))
    await until('svc/routesChanged', () => notifications.filter((method) => method === 'svc/routesChanged').length > before)
    const routes = await connection.sendRequest<{ routes: Array<{ path: string }> }>('svc/routes', {})
    expect(routes.routes.map((route) => route.path)).toContain('/about')
  }, 60_000)

  it('pushes svc/tracesChanged when the trace store gets new traces', async () => {
    const before = notifications.filter((method) => method === 'svc/tracesChanged').length
    const storedBefore = (await svcJson<{ traces: unknown[] }>(['trace:list', '--limit=1000'], { cwd: app.dir })).traces.length
    const serve = startSvc(['serve', '--port', '0', '--host', '127.0.0.1'], { cwd: app.dir })
    try {
      const [, url] = await waitForLine(serve.stdout, /listening on (http:\/\/\S+)/, 30_000)
      await (await fetch(`${url!.replace(/\/$/, '')}/api/v1/posts`)).arrayBuffer()
    } finally {
      const closed = new Promise((resolve) => serve.once('close', resolve))
      serve.kill('SIGTERM')
      await closed
    }
    await until('svc/tracesChanged', () => notifications.filter((method) => method === 'svc/tracesChanged').length > before)
    // The server's trace count follows the store (polled: an earlier replay's trace may have been the first push).
    const stored = (await svcJson<{ traces: unknown[] }>(['trace:list', '--limit=1000'], { cwd: app.dir })).traces.length
    expect(stored).toBe(storedBefore + 1)
    await until(`svc/status with ${stored} traces`, async () => (await connection.sendRequest<{ traces: number }>('svc/status', {})).traces === stored)
  }, 90_000)
})

describe('svc lsp --stdio without an app', () => {
  it('reports no_app with the CLI error, and custom requests fail with E_NO_APP', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'svc-lsp-empty-'))
    const child = spawn(process.execPath, [SVC_BIN, 'lsp', '--stdio'], { cwd: empty })
    const client = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin))
    client.listen()
    try {
      await client.sendRequest('initialize', { processId: process.pid, rootUri: pathToFileURL(empty).href, capabilities: {} })
      await client.sendNotification('initialized', {})
      const status = await until('no_app status', async () => {
        const current = await client.sendRequest<{ state: string; error: { code: string } | null }>('svc/status', {})
        return current.error !== null ? current : undefined
      })
      expect(contractValidator('ServerStatusJson')(status)).toBe(true)
      expect(status).toMatchObject({ state: 'no_app', app: null, error: { code: 'E_NO_APP' }, routes: 0, traces: null })
      const failure = await client.sendRequest('svc/routes', {}).then(
        () => null,
        (error: unknown) => error as ResponseError<{ code: string }>,
      )
      expect(failure?.data?.code).toBe('E_NO_APP')
      await client.sendRequest('shutdown')
      const exited = new Promise((resolve) => child.once('close', resolve))
      await client.sendNotification('exit')
      await exited
    } finally {
      client.dispose()
      if (child.exitCode === null) child.kill('SIGKILL')
      rmSync(empty, { recursive: true, force: true })
    }
  }, 60_000)
})
