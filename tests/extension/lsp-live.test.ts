/**
 * Layer 2, the protocol over stdio, in a workspace laid out as this repo is
 * (the app in a subfolder, auth on, several users), with the CLI run through
 * the workspace's `bin/svc.js`, which logs every CLI process it starts:
 *
 * - defect 1: the server re-reads traces only when new ones were written (the
 *   store's own counters), never because a read touched the store's files:
 *   no CLI process starts while nothing is written;
 * - defect 5: route files replaced by a rename (`sed -i`, formatters) are still
 *   seen, by the server's own watcher and through the editor's
 *   (`workspace/didChangeWatchedFiles`, registered by the server);
 *   "Refresh Routes" (`svc/refreshRoutes`) rebuilds the diagnostics too;
 * - the requests the editor's new views use: `svc/traceUsers`, `svc/authToken`,
 *   replay `as`/`header`/`url`, `svc/traces` with `ignore`.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node'
import { svcJson } from '../helpers/run-svc.ts'
import { contractValidator } from '../helpers/contract.ts'
import { repoWorkspace, type RepoWorkspace } from './helpers.ts'

let workspace: RepoWorkspace
const spawnLog = () => join(workspace.dir, 'spawned.log')
/** The CLI runs logged by the workspace's bin/svc.js (the server's own start included). */
const spawned = (): string[][] => {
  try {
    return readFileSync(spawnLog(), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as string[])
  } catch {
    return []
  }
}

interface Server {
  child: ChildProcessWithoutNullStreams
  connection: MessageConnection
  notifications: string[]
  diagnostics: Array<{ uri: string; diagnostics: Array<{ code: string }> }>
  registrations: Array<{ method: string; registerOptions: { watchers: Array<{ globPattern: unknown }> } }>
  stderr: () => string
  stop(): Promise<void>
}

/** Starts `node bin/svc.js lsp --stdio` in the workspace; `clientWatches`: the client offers to watch files for the server (as VS Code does). */
async function startServer(options: { clientWatches: boolean }): Promise<Server> {
  const child = spawn(process.execPath, [workspace.bin, 'lsp', '--stdio'], { cwd: workspace.dir, env: { ...process.env, NO_COLOR: '1', SVC_SPAWN_LOG: spawnLog() } })
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const connection = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin))
  const server: Server = { child, connection, notifications: [], diagnostics: [], registrations: [], stderr: () => stderr, stop: async () => {} }
  connection.onNotification('textDocument/publishDiagnostics', (params: Server['diagnostics'][number]) => void server.diagnostics.push(params))
  connection.onNotification((method: string) => void server.notifications.push(method))
  connection.onRequest('workspace/codeLens/refresh', () => null)
  connection.onRequest('client/registerCapability', (params: { registrations: Server['registrations'] }) => {
    server.registrations.push(...params.registrations)
    return null
  })
  connection.listen()
  const root = pathToFileURL(workspace.dir).href
  await connection.sendRequest('initialize', {
    processId: process.pid,
    rootUri: root,
    workspaceFolders: [{ uri: root, name: 'repo' }],
    capabilities: { workspace: { codeLens: { refreshSupport: true }, didChangeWatchedFiles: { dynamicRegistration: options.clientWatches, relativePatternSupport: true } } },
    initializationOptions: { tracePollMs: 200 },
  })
  await connection.sendNotification('initialized', {})
  server.stop = async () => {
    await connection.sendRequest('shutdown').catch(() => undefined)
    const closed = new Promise((resolve) => child.once('close', resolve))
    await connection.sendNotification('exit').catch(() => undefined)
    await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 5000))])
    if (child.exitCode === null) child.kill('SIGKILL')
    connection.dispose()
  }
  return server
}

/** Resolves when `check` holds (polled), failing after `timeoutMs` with what the server printed. */
async function until<T>(what: string, server: Server, check: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\nserver stderr: ${server.stderr()}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

const quietFor = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const routesFile = () => join(workspace.dir, workspace.appFolder, 'routes', 'web.ts')
/** What `sed -i` and formatters do: write a new file, rename it over the old one. */
function renameReplace(file: string, text: string): void {
  writeFileSync(`${file}.tmp`, text)
  renameSync(`${file}.tmp`, file)
}

beforeAll(async () => {
  workspace = await repoWorkspace()
}, 120_000)
afterAll(() => workspace?.remove())

describe('the trace store, watched without a refresh loop (defect 1)', () => {
  let server: Server
  const changes = () => server.notifications.filter((method) => method === 'svc/tracesChanged').length
  const listRuns = () => spawned().filter((args) => args[0] === 'trace:list').length

  beforeAll(async () => {
    server = await startServer({ clientWatches: false })
    await until('the routes and traces loaded', server, async () => {
      const status = await server.connection.sendRequest<{ traces: number | null; routes: number }>('svc/status', {})
      return status.traces === workspace.sent.length && status.routes > 0
    })
  }, 60_000)
  afterAll(() => server?.stop())

  it('starts no CLI process while nothing is written, even when another process reads the store', async () => {
    const before = spawned()
    const notified = changes()
    // A read-only trace:list (another process) touches traces.sqlite-wal and -shm: it used to set off the loop.
    await svcJson(['trace:list', '--limit=5'], { cwd: workspace.dir })
    // Ten looks at the store (every 200 ms here) with nothing written: nothing runs, nothing is announced.
    await quietFor(2000)
    expect(spawned()).toEqual(before)
    expect(changes()).toBe(notified)
  }, 30_000)

  it('reads the traces once when new ones are written, tells the client, and is quiet again', async () => {
    const runs = listRuns()
    const notified = changes()
    // A replay writes one trace (the CLI's in-process replay, a process of its own).
    await svcJson(['replay', workspace.named.list!.traceId!], { cwd: workspace.dir })
    await until('svc/tracesChanged', server, () => changes() > notified)
    expect(listRuns()).toBe(runs + 1)
    const status = await server.connection.sendRequest<{ traces: number; replays: number }>('svc/status', {})
    expect(status).toMatchObject({ traces: workspace.sent.length + 1, replays: 1 })
    // Its own trace:list wrote nothing: no second round.
    await quietFor(2000)
    expect(listRuns()).toBe(runs + 1)
    expect(changes()).toBe(notified + 1)
  }, 30_000)
})

describe('route files replaced by a rename (defect 5)', () => {
  it('are still seen by the server’s own watcher (an editor that does not watch for it)', async () => {
    const server = await startServer({ clientWatches: false })
    try {
      await until('the route table', server, async () => ((await server.connection.sendRequest<{ routes: number }>('svc/status', {})).routes > 0 ? true : undefined))
      const original = readFileSync(routesFile(), 'utf8')
      const seen = () => server.notifications.filter((method) => method === 'svc/routesChanged').length
      const paths = async () => (await server.connection.sendRequest<{ routes: Array<{ path: string }> }>('svc/routes', {})).routes.map((route) => route.path)
      // First a rename-replace, then a plain write: Node 20's recursive watcher stopped seeing the file after the first.
      renameReplace(routesFile(), original.replace("r.get('/loop'", "r.get('/first', () => ({ n: 1 }))\n  r.get('/loop'"))
      await until('the first change', server, async () => seen() > 0 && (await paths()).includes('/first'))
      const before = seen()
      writeFileSync(routesFile(), original.replace("r.get('/loop'", "r.get('/second', () => ({ n: 2 }))\n  r.get('/loop'"))
      await until('the second change', server, async () => seen() > before && (await paths()).includes('/second'))
      renameReplace(routesFile(), original)
      await until('the file put back', server, async () => !(await paths()).includes('/second'))
    } finally {
      await server.stop()
    }
  }, 90_000)

  it('are watched by the editor when it offers (VS Code’s watcher), and Refresh Routes rebuilds the diagnostics', async () => {
    const server = await startServer({ clientWatches: true })
    try {
      const registration = await until('the watcher registration', server, () => server.registrations.find((entry) => entry.method === 'workspace/didChangeWatchedFiles'))
      const appUri = pathToFileURL(join(workspace.dir, workspace.appFolder)).href
      expect(registration.registerOptions.watchers.map((watcher) => watcher.globPattern)).toEqual([
        { baseUri: appUri, pattern: 'routes/**' },
        { baseUri: appUri, pattern: 'app/**' },
      ])
      await until('the route table', server, async () => ((await server.connection.sendRequest<{ routes: number }>('svc/status', {})).routes > 0 ? true : undefined))
      const webUri = pathToFileURL(routesFile()).href
      const latest = () => server.diagnostics.filter((entry) => entry.uri === webUri).at(-1)?.diagnostics.map((d) => d.code) ?? []
      const original = readFileSync(routesFile(), 'utf8')
      const duplicated = original.replace("r.get('/loop'", "r.get('/boom', () => 'again')\n  r.get('/loop'")
      // The first route table is announced (svc/status) before the kernel's aliases are read and the diagnostics sent, which read the file.
      await until('the first diagnostics', server, () => (server.diagnostics.some((entry) => entry.uri === webUri) ? true : undefined))

      // The server does not watch the files itself now: a change nobody reports stays unseen...
      renameReplace(routesFile(), duplicated)
      await quietFor(1500)
      expect(latest()).not.toContain('duplicate-route')
      // ...until "Refresh Routes" asks for it: the route table, and the diagnostics with it.
      const refreshed = await server.connection.sendRequest<{ routes: Array<{ path: string }> }>('svc/refreshRoutes', {})
      expect(contractValidator('RouteListJson')(refreshed)).toBe(true)
      await until('the duplicate-route diagnostic', server, () => latest().includes('duplicate-route'))

      // The editor reports a change (its watcher saw the rename): routes and diagnostics follow.
      const changed = server.notifications.filter((method) => method === 'svc/routesChanged').length
      renameReplace(routesFile(), original)
      await server.connection.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: webUri, type: 2 }] })
      await until('svc/routesChanged', server, () => server.notifications.filter((method) => method === 'svc/routesChanged').length > changed)
      await until('the diagnostic cleared', server, () => !latest().includes('duplicate-route'))
    } finally {
      await server.stop()
    }
  }, 90_000)
})

describe('the requests of the editor’s new views', () => {
  let server: Server
  beforeAll(async () => {
    server = await startServer({ clientWatches: true })
  }, 60_000)
  afterAll(() => server?.stop())

  it('answer with what the CLI prints: users seen in traces, a token, replay as a user or with a saved token, lists without ignored paths', async () => {
    const cwd = workspace.dir
    const users = await server.connection.sendRequest('svc/traceUsers', {})
    expect(users).toEqual(await svcJson(['trace:users'], { cwd }))
    expect(contractValidator('TraceUsersJson')(users)).toBe(true)

    const token = await server.connection.sendRequest<{ token: string; user: { email: string } }>('svc/authToken', { email: 'user@example.com' })
    expect(contractValidator('AuthTokenJson')(token)).toBe(true)
    expect(token.user.email).toBe('user@example.com')

    const me = workspace.named['me:admin']!.traceId!
    const asAda = await server.connection.sendRequest<{ response: { status: number; body: { data: { email: string } } } }>('svc/replay', { id: me, as: 'ada@example.com' })
    expect(asAda.response.body.data.email).toBe('ada@example.com')
    const withToken = await server.connection.sendRequest<{ response: { body: { data: { email: string } } } }>('svc/replay', { id: me, header: [`Authorization: Bearer ${token.token}`] })
    expect(withToken.response.body.data.email).toBe('user@example.com')

    const curl = await server.connection.sendRequest<{ command: string }>('svc/replay', { id: me, format: 'curl', url: 'http://127.0.0.1:8123', as: 'admin@example.com' })
    expect(curl.command).toMatch(/^curl -X GET 'http:\/\/127\.0\.0\.1:8123\/api\/auth\/me'.*authorization: Bearer ey/)

    const listed = await server.connection.sendRequest<{ traces: Array<{ path: string }> }>('svc/traces', { ignore: ['/health/*'], limit: 100 })
    expect(listed).toEqual(await svcJson(['trace:list', '--ignore=/health/*', '--limit=100'], { cwd }))
    expect(listed.traces.some((trace) => trace.path.startsWith('/health/'))).toBe(false)
  }, 60_000)
})
