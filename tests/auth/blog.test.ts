/**
 * Auth is on by default in apps loaded by the CLI (`loadApp`): the example
 * blog gets /api/auth/*, protects its write routes with `auth`, deletes with
 * `auth:admin`, throttles creation, mails to storage/logs/mail.log, and reads
 * RS256 keys from storage/keys/.
 */
import { existsSync, readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { authPlugin, createPasswordHasher, defineKernel, generateRsaKeyPair, migrate } from 'svc'
import { writeJwtKeyFiles } from 'svc/node'
import { createTestClient, type TestClient } from 'svc/testing'
import { importNatively } from '../../cli/project/import-file.ts'
import { loadApp, type LoadedApp } from '../../cli/project/load-app.ts'
import { loadMigrations } from '../../cli/project/migrations.ts'
import { findProject, type Project } from '../../cli/project/project.ts'
import { copyExampleApp, type AppCopy } from '../helpers/cli.ts'
import { PASSWORD, SECRET } from './helpers.ts'

const ENV = `APP_ENV=test\nAPP_DEBUG=false\nJWT_SECRET=${SECRET}\nPASSWORD_HASH_MEMORY_KIB=64\nPASSWORD_HASH_ITERATIONS=1\n`

let copy: AppCopy
let project: Project
let loaded: LoadedApp
let client: TestClient

beforeAll(async () => {
  copy = copyExampleApp()
  copy.write('.env', ENV)
  project = findProject(copy.dir)
  loaded = await loadApp(project, { importFile: importNatively })
  await migrate(loaded.database!, await loadMigrations(project, importNatively))
  client = createTestClient(loaded.app)
})
afterAll(async () => {
  await loaded?.close()
  copy?.remove()
})

async function register(email: string) {
  const response = await client.post('/api/auth/register', { json: { name: email, email, password: PASSWORD, password_confirmation: PASSWORD } })
  expect(response.status).toBe(201)
  return { token: response.body.data.token as string, id: response.body.data.user.id as number }
}

describe('the blog with auth on by default', () => {
  it('lists the auth routes beside its own', () => {
    const routes = loaded.app.routes().map((route) => `${route.method} ${route.path} ${route.middleware.join(',')}`.trim())
    expect(routes).toEqual(
      expect.arrayContaining([
        'POST /api/auth/login throttle:60,1',
        'GET /api/auth/me auth',
        'POST /api/v1/posts auth,throttle:10,1,idempotent:optional',
        'PUT /api/v1/posts/{id} auth',
        'DELETE /api/v1/posts/{id} auth:admin',
      ]),
    )
  })

  it('reads posts without a token, writes with one, deletes as admin only', async () => {
    expect((await client.get('/api/v1/posts')).status).toBe(200)
    const anonymous = await client.post('/api/v1/posts', { json: { title: 'Nope' } })
    expect(anonymous.status).toBe(401)
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer realm="api"')

    const { token, id } = await register('writer@example.com')
    const created = await client.post('/api/v1/posts', { json: { title: 'Hello auth' }, token })
    expect(created.status).toBe(201)
    expect(created.headers.get('ratelimit-limit')).toBe('10')
    const postId = created.body.data.id
    expect((await client.put(`/api/v1/posts/${postId}`, { json: { title: 'Edited' }, token })).status).toBe(200)
    const denied = await client.delete(`/api/v1/posts/${postId}`, { token })
    expect(denied.status).toBe(403)
    expect(denied.body.error).toBe('Forbidden')
    await loaded.database!.execute("update users set role = 'admin' where id = ?", [id])
    expect((await client.delete(`/api/v1/posts/${postId}`, { token })).status).toBe(200)
  })

  it('validates what its routes declare, in the same words as the auth routes', async () => {
    const { token } = await register('careless@example.com')
    const invalid = await client.post('/api/v1/posts', { json: { title: '  ', published_at: 'soon' }, token })
    expect(invalid.status).toBe(422)
    expect(invalid.body.errors).toEqual({
      title: ['The title field is required.'],
      published_at: ['The published at field must be a valid ISO 8601 timestamp.'],
    })
    const auth = await client.post('/api/auth/register', { json: { name: ' ', email: 'x@example.com', password: PASSWORD, password_confirmation: PASSWORD } })
    expect(auth.body.errors).toEqual({ name: ['The name field is required.'] })

    // The lists declare their query string (paginationQuery): ?page is checked before the handler, and read as a number.
    expect((await client.get('/api/v2/posts?page=0')).body.errors).toEqual({ page: ['The page field must be at least 1.'] })
    expect((await client.get('/api/v2/posts?page=2')).body.data.meta.page).toBe(2)
  })

  it('stores published_at in UTC, so the archive sorts and groups by year in time order; refuses a day the calendar lacks', async () => {
    const { token } = await register('dated@example.com')
    // 00:00 at +05:00 is 19:00 UTC the day before: in 2025, and before 20:00Z. Stored as sent, it sorted first and
    // was listed under 2026 (text order and strftime read the digits as written).
    const early = await client.post('/api/v1/posts', { json: { title: 'Early', published_at: '2026-01-01T00:00:00+05:00' }, token })
    expect(early.status).toBe(201)
    expect(early.body.data.published_at).toBe('2025-12-31T19:00:00.000Z')
    const late = await client.post('/api/v1/posts', { json: { title: 'Late', published_at: '2025-12-31T20:00:00Z' }, token })
    expect(late.body.data.published_at).toBe('2025-12-31T20:00:00.000Z')
    const archive = await client.get('/api/v1/posts/archive/2025')
    expect(archive.body.data.map((post: { title: string }) => post.title).filter((title: string) => title === 'Early' || title === 'Late')).toEqual(['Late', 'Early'])
    const edited = await client.put(`/api/v1/posts/${early.body.data.id}`, { json: { title: 'Early', published_at: '2026-03-01T12:00:00-02:00' }, token })
    expect(edited.body.data.published_at).toBe('2026-03-01T14:00:00.000Z')
    // Accepted before, and stored as the 31st of February.
    const impossible = await client.post('/api/v1/posts', { json: { title: 'Never', published_at: '2026-02-31T10:00:00Z' }, token })
    expect(impossible.status).toBe(422)
    expect(impossible.body.errors).toEqual({ published_at: ['The published at field must be a valid ISO 8601 timestamp.'] })
  })

  it('validates pagination: ?page=1e300 is a 422 (it was a 500), ?per_page is bounded, v2 reports it', async () => {
    const errors = async (path: string) => {
      const response = await client.get(path)
      expect(response.status, path).toBe(422)
      return response.body.errors
    }
    expect(await errors('/api/v1/posts?page=1e300')).toEqual({ page: ['The page field must contain only digits.'] })
    expect(await errors('/api/v1/posts?page=-1')).toEqual({ page: ['The page field must contain only digits.'] })
    expect(await errors('/api/v1/posts?page=99999999999999999999')).toEqual({ page: ['The page field must not be greater than 1000000.'] })
    expect(await errors('/api/v1/posts?per_page=1000')).toEqual({ per_page: ['The per page field must not be greater than 100.'] })
    const meta = await client.get('/api/v2/posts?page=2&per_page=5')
    expect(meta.status).toBe(200)
    expect(meta.body.data.meta).toMatchObject({ page: 2, per_page: 5 })
  })

  it('names each post by a slug its route reaches: not all digits (an id), not `archive` or `drafts`, accents dropped', async () => {
    const { token } = await register('sluggish@example.com')
    const created = async (title: string) => {
      // Published: a draft's slug is a 404 to everyone (examples/blog/tests/feature/drafts.test.ts).
      const response = await client.post('/api/v1/posts', { json: { title, published_at: '2026-01-02T03:04:05.000Z' }, token })
      expect(response.status, title).toBe(201)
      return response.body.data as { id: number; slug: string }
    }
    // All digits, the slug was read as an id by GET /posts/{id} (another post, or a 404); `archive` reached the archive,
    // `drafts` the drafts.
    for (const title of ['2026', 'Archive', 'Drafts', 'Ünïcödé Çafé']) {
      const post = await created(title)
      const bySlug = await client.get(`/api/v1/posts/${post.slug}`)
      expect(bySlug.status, post.slug).toBe(200)
      expect(bySlug.body.data.id, post.slug).toBe(post.id)
    }
    expect((await created('Crème Brûlée')).slug).toBe('creme-brulee')
  })

  it('refuses in the schema the text a post cannot hold, naming the field: a NUL in the body, an invisible character in the title', async () => {
    const { token } = await register('careful@example.com')
    // A NUL got past the schema to the database's guard: a 422 without `errors`, telling the developer what to do.
    const nul = await client.post('/api/v1/posts', { json: { title: 'Fine', body: 'cut\u0000here' }, token })
    expect(nul.status).toBe(422)
    expect(nul.body.errors).toEqual({ body: ['The body field must not contain a NUL character.'] })
    const override = await client.post('/api/v1/posts', { json: { title: 'evil\u202Etxt.exe' }, token })
    expect(override.body.errors).toEqual({ title: ['The title field must not contain control or invisible characters.'] })
  })

  it('throttles post creation at 10 a minute per user', async () => {
    const { token } = await register('prolific@example.com')
    const statuses = []
    for (let i = 0; i < 11; i++) statuses.push((await client.post('/api/v1/posts', { json: { title: `Post ${i}` }, token })).status)
    expect(statuses.slice(0, 10).every((status) => status === 201)).toBe(true)
    expect(statuses[10]).toBe(429)
  })

  it('hashes passwords with the native argon2id (svc/node), in PHC strings the portable one verifies', async () => {
    const ready = await client.get('/health/ready')
    expect(ready.body.data.checks.password_hashing).toMatchObject({ status: 'ok', argon2id: 'native (@node-rs/argon2)' })
    await register('native@example.com')
    const stored = String((await loaded.database!.execute("select password from users where email = 'native@example.com'")).rows[0]!.password)
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=64,t=1,p=1\$/)
    expect(await createPasswordHasher({ memoryKib: 64, iterations: 1, parallelism: 1 }).verify(stored, PASSWORD)).toBe(true)
  })

  it('mails to storage/logs/mail.log by default', async () => {
    await register('mailed@example.com')
    const log = copy.path('storage', 'logs', 'mail.log')
    await vi.waitFor(() => expect(existsSync(log) && readFileSync(log, 'utf8').includes('To: mailed@example.com')).toBe(true))
    expect(readFileSync(log, 'utf8')).toMatch(/Subject: Verify your email address\n\nHello mailed@example\.com,/)
  })
})

describe('loadApp and auth configuration', () => {
  it('refuses to load without JWT_SECRET (E_CONFIG naming the variable)', async () => {
    await expect(loadApp(project, { importFile: importNatively, overrides: { JWT_SECRET: '' } })).rejects.toMatchObject({
      code: 'E_CONFIG',
      message: expect.stringContaining('JWT_SECRET'),
    })
  })

  it('describes routes without a database and without a secret (route:list)', async () => {
    const described = await loadApp(project, { importFile: importNatively, overrides: { JWT_SECRET: '' }, withDatabase: false })
    expect(described.app.routes().some((route) => route.path === '/api/auth/register')).toBe(true)
    await described.close()
  })

  it('uses RS256 keys from storage/keys and serves the JWKS', async () => {
    writeJwtKeyFiles(project.storageDir, await generateRsaKeyPair())
    const rs = await loadApp(project, { importFile: importNatively, overrides: { JWT_ALGORITHM: 'RS256' } })
    try {
      const rsClient = createTestClient(rs.app)
      const jwks = await rsClient.get('/.well-known/jwks.json')
      expect(jwks.status).toBe(200)
      expect(jwks.body.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256' })
      const login = await rsClient.post('/api/auth/register', {
        json: { name: 'R', email: 'rs@example.com', password: PASSWORD, password_confirmation: PASSWORD },
      })
      expect(login.status).toBe(201)
      expect((await rsClient.get('/api/auth/me', { token: login.body.data.token })).status).toBe(200)
    } finally {
      await rs.close()
    }
  })

  it('refuses to start with an RS256 pair that does not match, or a key that cannot be read (E_CONFIG)', async () => {
    const one = await generateRsaKeyPair()
    const two = await generateRsaKeyPair()
    const rs256 = { importFile: importNatively, overrides: { JWT_ALGORITHM: 'RS256' } }
    writeJwtKeyFiles(project.storageDir, { privateKey: one.privateKey, publicKey: two.publicKey })
    await expect(loadApp(project, rs256)).rejects.toMatchObject({
      code: 'E_CONFIG',
      message: 'Invalid configuration: JWT_PUBLIC_KEY: does not match JWT_PRIVATE_KEY (they are not one key pair)',
    })
    writeJwtKeyFiles(project.storageDir, { privateKey: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n', publicKey: one.publicKey })
    await expect(loadApp(project, rs256)).rejects.toMatchObject({ code: 'E_CONFIG', message: expect.stringContaining('cannot read the RS256 private key') })
    // Describing the app (route:list) does not need usable keys.
    const described = await loadApp(project, { ...rs256, withDatabase: false })
    await described.close()
    writeJwtKeyFiles(project.storageDir, one)
    const fine = await loadApp(project, rs256)
    await fine.close()
  })

  it('keeps a kernel’s own authPlugin instead of adding a second', async () => {
    copy.write('app/kernel.ts', `import { authPlugin, defineKernel } from 'svc'\nexport default defineKernel({ plugins: [authPlugin()] })\n`)
    try {
      const custom = await loadApp(project, { importFile: importNatively })
      expect(custom.app.routes().filter((route) => route.path === '/api/auth/login')).toHaveLength(1)
      await custom.close()
    } finally {
      ;(await import('node:fs')).rmSync(copy.path('app', 'kernel.ts'))
    }
    expect(defineKernel({ plugins: [authPlugin()] }).plugins).toHaveLength(1)
  })
})
