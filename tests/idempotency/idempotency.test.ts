/**
 * The `idempotent` middleware through app.fetch on a real libSQL file: one
 * key per caller, method and path; concurrent twins (201 and 409); the
 * byte-identical replay; another user's key; another body (422); a missing
 * or malformed key (400); expiry; a stale lock taken over; failures free the
 * key.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  createApp,
  defineRoutes,
  HttpError,
  idempotencyMigration,
  idempotent,
  migrate,
  pruneIdempotencyKeys,
  resolveConfig,
  ServiceBusyError,
  type App,
  type Context,
  type Database,
  type Middleware,
} from '../../framework/index.ts'
import { openDatabase } from '../../framework/node/index.ts'
import { Ajv } from 'ajv'
import { buildOpenApi, type JsonObject } from '../../cli/openapi/document.ts'

let dir: string
let db: Database
let app: App
let clock = 1_000_000_000_000
let created = 0
let gate: Promise<void> | undefined
/** Called when a request reaches the handler: its key is claimed by then. */
let entered: (() => void) | undefined

/** Stands in for `auth`: the user named by `x-user`. */
const asUser: Middleware = async function asUser(c, next) {
  const id = c.headers.get('x-user')
  if (id !== null) c.user = { id: Number(id), name: `user ${id}`, email: `u${id}@example.com`, role: 'user' }
  return next()
}

async function createPost(c: Context) {
  const body = (await c.body()) as { title?: unknown }
  if (typeof body.title !== 'string') throw new HttpError(422, 'title is required')
  if (body.title === 'explode') throw new Error('the database went away')
  entered?.()
  await gate
  created++
  return c.json({ id: created, title: body.title, at: Math.random() }, { status: 201 })
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-idempotency-'))
  db = await openDatabase({ storageDir: dir, projectDir: dir })
  await migrate(db, [idempotencyMigration])
  const now = () => clock
  app = createApp({
    config: resolveConfig({ APP_ENV: 'test' }),
    database: db,
    api: defineRoutes((r) => {
      r.post('/posts', createPost).middleware(asUser, idempotent({ now, ttlMs: 60_000, lockTimeoutMs: 5_000 }))
      r.post('/drafts', createPost).middleware(asUser, 'idempotent:optional')
      r.post('/notes', createPost).middleware(asUser, 'idempotent')
      r.get('/posts', () => ({ ok: true })).middleware('idempotent')
      r.delete('/posts/{id}', () => new Response(null, { status: 204 })).middleware('idempotent')
    }),
  })
})

afterAll(() => {
  db?.close()
  rmSync(dir, { recursive: true, force: true })
})

beforeEach(async () => {
  await db.execute('delete from idempotency_keys')
  created = 0
  gate = undefined
  entered = undefined
})

/** Resolves once the next request reaches the handler (its key claimed): no clock is read. */
function nextEntered(): Promise<void> {
  return new Promise((resolve) => (entered = resolve))
}

function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  return app.fetch(
    new Request(`http://localhost/api${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-user': '1', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    }),
  )
}

/**
 * POST /api/posts (idempotent) on a database where the first statement matching `failing` fails as a busy
 * database's write does; a sender of bodies with one key.
 */
function busyRoute(failing: RegExp, key: string): (body: string) => Promise<Response> {
  let armed = true
  const database = new Proxy(db, {
    get(object, name, receiver) {
      if (name !== 'execute') return Reflect.get(object, name, receiver)
      return (statement: string | { sql: string }, args?: unknown) => {
        const sql = typeof statement === 'string' ? statement : statement.sql
        if (armed && failing.test(sql)) {
          armed = false
          return Promise.reject(new ServiceBusyError(1, new Error('simulated: waited its whole turn')))
        }
        return object.execute(statement as string, args as never)
      }
    },
  })
  const busyApp = createApp({
    config: resolveConfig({ APP_ENV: 'test' }),
    database,
    api: defineRoutes((r) => r.post('/posts', createPost).middleware(asUser, idempotent({ now: () => clock }))),
  })
  const headers = { 'content-type': 'application/json', 'x-user': '1', 'idempotency-key': key }
  return async (body) => busyApp.fetch(new Request('http://localhost/api/posts', { method: 'POST', headers, body }))
}

describe('idempotent', () => {
  it('two concurrent requests with one key: one 201, one 409; the handler runs once', async () => {
    let open!: () => void
    gate = new Promise((resolve) => (open = resolve))
    const inHandler = nextEntered()
    const first = post('/posts', { title: 'a' }, { 'idempotency-key': 'k-1' })
    // The second arrives while the first waits inside the handler.
    await inHandler
    entered = undefined
    const second = await post('/posts', { title: 'a' }, { 'idempotency-key': 'k-1' })
    open()
    const answers = [await first, second]
    expect(answers.map((response) => response.status).sort()).toEqual([201, 409])
    const conflict = answers.find((response) => response.status === 409)!
    expect(conflict.headers.get('retry-after')).toBe('1')
    expect(await conflict.json()).toMatchObject({ success: false, error: expect.stringMatching(/still being processed/) })
    expect(created).toBe(1)
  })

  it('a retry after completion replays status, headers and body byte for byte, with Idempotent-Replayed: true', async () => {
    const first = await post('/posts', { title: 'hello', tags: ['x'] }, { 'idempotency-key': '"9f1c-uuid"' })
    expect(first.status).toBe(201)
    expect(first.headers.get('idempotent-replayed')).toBeNull()
    const firstBody = new Uint8Array(await first.arrayBuffer())
    // Same body in another key order and spacing: the same request.
    const again = await post('/posts', '{ "tags": ["x"],  "title": "hello" }', { 'idempotency-key': '"9f1c-uuid"' })
    expect(again.status).toBe(201)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'))
    expect(new Uint8Array(await again.arrayBuffer())).toEqual(firstBody)
    // Each answer has its own trace id.
    expect(again.headers.get('x-service-trace-id')).not.toBe(first.headers.get('x-service-trace-id'))
    expect(created).toBe(1)
    // The unquoted form of the same key is the same key.
    expect((await post('/posts', { title: 'hello', tags: ['x'] }, { 'idempotency-key': '9f1c-uuid' })).headers.get('idempotent-replayed')).toBe('true')
  })

  it("another user's same key, or the same key on another route, is another key", async () => {
    expect((await post('/posts', { title: 'a' }, { 'idempotency-key': 'shared', 'x-user': '1' })).status).toBe(201)
    const other = await post('/posts', { title: 'a' }, { 'idempotency-key': 'shared', 'x-user': '2' })
    expect(other.status).toBe(201)
    expect(other.headers.get('idempotent-replayed')).toBeNull()
    expect((await post('/notes', { title: 'a' }, { 'idempotency-key': 'shared', 'x-user': '1' })).headers.get('idempotent-replayed')).toBeNull()
    // Without a user, the client address is the caller.
    expect((await post('/notes', { title: 'a' }, { 'idempotency-key': 'shared', 'x-user': '' })).status).toBe(201)
    expect(created).toBe(4)
  })

  it('the same key with a different body is 422, and changes nothing', async () => {
    await post('/posts', { title: 'one' }, { 'idempotency-key': 'k-2' })
    const different = await post('/posts', { title: 'two' }, { 'idempotency-key': 'k-2' })
    expect(different.status).toBe(422)
    expect(await different.json()).toMatchObject({ error: expect.stringMatching(/different request body/) })
    expect(created).toBe(1)
    expect((await post('/posts', { title: 'one' }, { 'idempotency-key': 'k-2' })).headers.get('idempotent-replayed')).toBe('true')
  })

  it('a body nested deeper than the stack is fingerprinted like any other (it answered 500)', async () => {
    const deep = (depth: number, leaf: string) => `{"title":"deep","x":${'['.repeat(depth)}${leaf}${']'.repeat(depth)}}`
    const first = await post('/posts', deep(100_000, '1'), { 'idempotency-key': 'k-deep' })
    expect(first.status).toBe(201)
    expect((await post('/posts', deep(100_000, '1'), { 'idempotency-key': 'k-deep' })).headers.get('idempotent-replayed')).toBe('true')
    expect((await post('/posts', deep(100_000, '2'), { 'idempotency-key': 'k-deep' })).status).toBe(422)
    expect(created).toBe(1)
  })

  it('a missing key is 400 where the route requires one; optional lets it through; a malformed key is 400', async () => {
    const missing = await post('/notes', { title: 'a' })
    expect(missing.status).toBe(400)
    expect(await missing.json()).toMatchObject({ error: expect.stringMatching(/needs an Idempotency-Key header/) })
    expect((await post('/drafts', { title: 'a' })).status).toBe(201)
    expect((await post('/drafts', { title: 'a' })).status).toBe(201)
    expect(created).toBe(2)
    for (const bad of ['', '""', 'x'.repeat(256), 'clé']) {
      expect((await post('/notes', { title: 'a' }, { 'idempotency-key': bad })).status).toBe(400)
    }
    // Methods that are idempotent already pass through.
    expect((await app.fetch(new Request('http://localhost/api/posts'))).status).toBe(200)
    expect((await app.fetch(new Request('http://localhost/api/posts/1', { method: 'DELETE' }))).status).toBe(204)
  })

  it('the key is a structured-field string or a bare key, and the 400 says which keys are taken', async () => {
    // A lone quote and a bare key with a space were taken, though the message said "visible ASCII".
    const refused = ['"', ' " ', 'two words', 'a"b', 'a\\b', '"unclosed', '"a"b"', '"a\\x"', '"tab\there"', '"clé"', `"${'x'.repeat(256)}"`]
    for (const bad of refused) {
      const response = await post('/notes', { title: 'a' }, { 'idempotency-key': bad })
      expect(response.status, bad).toBe(400)
      expect(await response.json(), bad).toMatchObject({
        code: 400,
        error: 'The Idempotency-Key header must be a quoted string of 1 to 255 printable ASCII characters ("8e03978e-40d5", with \\" and \\\\ escaped), or the key bare: visible ASCII with no spaces, quotes or backslashes',
      })
    }
    const before = created
    // The draft's form, spaces and escapes included, is one key with its bare twin where they unquote alike.
    for (const [key, same] of [['"order 1"', '"order 1"'], ['"say \\"hi\\" \\\\o/"', '"say \\"hi\\" \\\\o/"'], ['"k-sf"', 'k-sf']] as const) {
      expect((await post('/notes', { title: key }, { 'idempotency-key': key })).status, key).toBe(201)
      const again = await post('/notes', { title: key }, { 'idempotency-key': same })
      expect(again.headers.get('idempotent-replayed'), key).toBe('true')
    }
    expect(created - before).toBe(3)
    expect((await db.all("select idempotency_key from idempotency_keys where idempotency_key in ('order 1', 'say \"hi\" \\o/')")).length).toBe(2)
  })

  it("the OpenAPI document's Idempotency-Key schema accepts exactly the keys the server takes", async () => {
    const parameter = ((buildOpenApi(app.routes(), new Map(), { title: 'test', version: '1' }).document.paths as Record<string, Record<string, JsonObject>>)['/api/notes']!.post!
      .parameters as JsonObject[]).find((p) => p.name === 'Idempotency-Key')!
    const schemaAccepts = new Ajv({ strict: false }).compile(parameter.schema as object)
    // It had no pattern (a space, a quote, `"a";x=1` passed it) and maxLength 255, which a quoted key of 254 or 255 exceeds.
    const keys = [
      'plain-1', '"quoted 2"', `b${'x'.repeat(254)}`, `"q${'x'.repeat(254)}"`, `"${'\\\\'.repeat(255)}"`, '"say \\"hi\\""', '"~!#$%&()*+,-./:;<=>?@[]^_`{|}"', '!#$%~',
      '', '""', '"', `c${'x'.repeat(255)}`, `"r${'x'.repeat(255)}"`, 'two words', 'a"b', 'a\\b', '"unclosed', '"a"b"', '"a\\x"', '"tab\there"', 'clé', '"clé"', '"a";x=1', 'nbsp\u00a0', '\u00a0nbsp',
    ]
    for (const [index, key] of keys.entries()) {
      const status = (await post('/notes', { title: `table ${index}` }, { 'idempotency-key': key })).status
      expect([201, 400], key).toContain(status)
      expect(schemaAccepts(key), `${JSON.stringify(key)}: the server answered ${status}`).toBe(status === 201)
    }
  })

  it('a failed request (4xx or 5xx) frees the key: the client can fix it and retry with the same key', async () => {
    const invalid = await post('/posts', { title: 42 }, { 'idempotency-key': 'k-3' })
    expect(invalid.status).toBe(422)
    const fixed = await post('/posts', { title: 'fixed' }, { 'idempotency-key': 'k-3' })
    expect(fixed.status).toBe(201)
    expect(fixed.headers.get('idempotent-replayed')).toBeNull()
    const crashed = await post('/posts', { title: 'explode' }, { 'idempotency-key': 'k-4' })
    expect(crashed.status).toBe(500)
    expect((await db.all("select * from idempotency_keys where idempotency_key = 'k-4'")).length).toBe(0)
    expect((await post('/posts', { title: 'explode' }, { 'idempotency-key': 'k-4' })).status).toBe(500)
  })

  it('an answer that cannot be stored (a busy database) is still sent: the work is done, a 503 would ask for it again', async () => {
    // The same routes on a database whose write of the answer fails, once, as a busy one's does.
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {})
    try {
      const request = busyRoute(/set status = 'done'/, 'k-busy')
      const answer = await request('{"title":"kept"}')
      expect(answer.status).toBe(201)
      expect(await answer.json()).toMatchObject({ success: true, data: { id: 1, title: 'kept' } })
      expect(created).toBe(1)
      expect(errors.mock.calls.join('\n')).toMatch(/\[svc idempotency\] the answer to POST \/api\/posts .* was sent but could not be stored/)
      // The key stays locked (the work was done): a retry is told to wait, not run again.
      expect((await request('{"title":"kept"}')).status).toBe(409)
      expect(created).toBe(1)
    } finally {
      errors.mockRestore()
    }
  })

  it("a failed request whose key cannot be freed (a busy database) still gets its own answer, not the database's 503", async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {})
    try {
      const request = busyRoute(/delete from idempotency_keys/, 'k-unfreed')
      const invalid = await request('{"title":42}')
      expect(invalid.status).toBe(422)
      expect(await invalid.json()).toMatchObject({ error: 'title is required' })
      expect(errors.mock.calls.join('\n')).toMatch(/\[svc idempotency\] the key of POST \/api\/posts .* could not be freed/)
      expect(created).toBe(0)
    } finally {
      errors.mockRestore()
    }
  })

  it('keys expire: after the TTL the same key runs again; the prune deletes expired keys', async () => {
    await post('/posts', { title: 'a' }, { 'idempotency-key': 'k-5' })
    clock += 59_999
    expect((await post('/posts', { title: 'a' }, { 'idempotency-key': 'k-5' })).headers.get('idempotent-replayed')).toBe('true')
    clock += 1
    const after = await post('/posts', { title: 'b' }, { 'idempotency-key': 'k-5' })
    expect(after.status).toBe(201)
    expect(after.headers.get('idempotent-replayed')).toBeNull()
    expect(created).toBe(2)
    await post('/posts', { title: 'c' }, { 'idempotency-key': 'k-6' })
    clock += 60_000
    expect(await pruneIdempotencyKeys(db, clock)).toBe(2)
    expect(await pruneIdempotencyKeys(db, clock)).toBe(0)
  })

  it('an in-flight lock whose request died is taken over after the lock timeout, not before', async () => {
    let open!: () => void
    gate = new Promise((resolve) => (open = resolve))
    // A request that will never finish its claim (its process "died" mid-way).
    const inHandler = nextEntered()
    const stuck = post('/posts', { title: 'a' }, { 'idempotency-key': 'k-7' })
    // Its claim must be stamped before the clock moves: waiting 50 ms for it failed under load (409 at the takeover).
    await inHandler
    entered = undefined
    clock += 4_999
    expect((await post('/posts', { title: 'a' }, { 'idempotency-key': 'k-7' })).status).toBe(409)
    clock += 1
    gate = undefined
    const takeover = await post('/posts', { title: 'a' }, { 'idempotency-key': 'k-7' })
    expect(takeover.status).toBe(201)
    const takeoverBody = await takeover.text()
    // The dead request's late answer does not overwrite the new owner's.
    open()
    await stuck
    const replay = await post('/posts', { title: 'a' }, { 'idempotency-key': 'k-7' })
    expect(replay.headers.get('idempotent-replayed')).toBe('true')
    expect(await replay.text()).toBe(takeoverBody)
  })
})
