/**
 * `make:crud --owned`: rows that belong to the signed-in user who creates them, on a copy of the example app. The
 * migration has the owner's column (a foreign key to make:auth's users), the request has none (the owner comes from
 * the token), and through the app in process another user gets 404 from show, update and delete, an empty list,
 * and changes nothing; an admin reaches every row. Layered and `--simple`, with `--seed`; the project type-checks and
 * the tests make:crud wrote (which prove the same) pass. Refused before anything is written: `--owned --public`,
 * a `user_id` in `--fields`, an app without make:auth's users.
 */
import { readdirSync, rmSync } from 'node:fs'
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
let bookmarks: MakeJson
let notes: MakeJson

const make = (...args: string[]) => svcJson<MakeJson>(args, { cwd: app.dir })
const migration = (made: MakeJson, table: string) => app.read('database', 'migrations', made.written.find((path) => path.endsWith(`_create_${table}_table.ts`))!.replace('database/migrations/', ''))

beforeAll(async () => {
  app = generatorApp()
  app.write('.env', `APP_ENV=test\nAPP_DEBUG=false\nJWT_SECRET=${SECRET}\nPASSWORD_HASH_MEMORY_KIB=64\nPASSWORD_HASH_ITERATIONS=1\n`)
  bookmarks = await make('make:crud', 'Bookmark', '--owned', '--fields=title:string,url:string')
  notes = await make('make:crud', 'Note', '--owned', '--simple', '--seed', '--fields=body:text,pinned:boolean')
}, 180_000)
afterAll(() => app?.remove())

describe('make:crud Bookmark --owned', () => {
  it('writes the owner as a foreign key to users in the migration and the model, not in the request', () => {
    expect(migration(bookmarks, 'bookmarks')).toContain('"user_id" integer not null references "users" ("id")')
    expect(app.read('app', 'models', 'bookmark.ts')).toContain("fillable: ['title', 'url', 'user_id']")
    expect(app.read('app', 'requests', 'bookmark-request.ts')).not.toContain('user_id')
    expect(app.read('app', 'resources', 'bookmark-resource.ts')).toContain('user_id: v.number()')
    expect(app.read('app', 'controllers', 'bookmarks.ts')).toContain('user_id: c.user!.id')
    // --seed: the factory gives each row a user who can log in (svc's userFactory).
    expect(app.read('database', 'factories', 'note-factory.ts')).toContain('user_id: userFactory')
  })

  it('refuses --owned --public, a user_id of --fields and an app without users, writing nothing', async () => {
    const files = appFiles(app)
    const open = await runSvc(['make:crud', 'Pin', '--owned', '--public', '--json'], { cwd: app.dir })
    expect(open.exitCode).toBe(1)
    expect(JSON.parse(open.stdout).error).toMatchObject({ code: 'E_BAD_OPTION', message: '--owned and --public do not go together: the owner of a row is the signed-in user' })
    const named = await runSvc(['make:crud', 'Pin', '--owned', '--fields=label:string,user_id:references'], { cwd: app.dir })
    expect(named.exitCode).toBe(1)
    expect(named.stderr).toContain('--owned adds the user_id column itself, from the token: leave it out of --fields')
    expect(named.stderr).toContain('--fields=label:string')
    expect(appFiles(app)).toEqual(files)

    const bare = generatorApp()
    try {
      for (const file of readdirSync(bare.path('database', 'migrations')).filter((name) => name.endsWith('_create_users_table.ts'))) {
        rmSync(bare.path('database', 'migrations', file))
      }
      const before = appFiles(bare)
      const refused = await runSvc(['make:crud', 'Pin', '--owned'], { cwd: bare.dir })
      expect(refused.exitCode).toBe(1)
      expect(refused.stderr).toContain('--owned needs the users of make:auth')
      expect(refused.stderr).toContain('fix: svc make:auth first')
      expect(appFiles(bare)).toEqual(before)
    } finally {
      bare.remove()
    }
  })
})

describe('the owned endpoints, through the app in process', () => {
  let loaded: LoadedApp
  let client: TestClient
  const tokens: Record<'ada' | 'bob' | 'admin', string> = { ada: '', bob: '', admin: '' }

  beforeAll(async () => {
    expect((await runSvc(['migrate:fresh'], { cwd: app.dir })).exitCode).toBe(0)
    loaded = await loadApp(findProject(app.dir))
    client = createTestClient(loaded.app)
    for (const name of ['ada', 'bob', 'admin'] as const) {
      const email = `${name}@example.com`
      const registered = await client.post('/api/auth/register', { json: { name, email, password: PASSWORD, password_confirmation: PASSWORD } })
      expect(registered.status, JSON.stringify(registered.body)).toBe(201)
      tokens[name] = registered.body.data.token
    }
    await loaded.database!.execute("update users set role = 'admin' where email = 'admin@example.com'")
  }, 60_000)
  afterAll(() => loaded?.close())

  for (const [resource, valid, change] of [
    ['/api/v2/bookmarks', { title: 'Docs', url: 'https://example.com/docs' }, { title: 'Taken', url: 'https://example.com/evil' }],
    ['/api/v2/notes', { body: 'Mine', pinned: false }, { body: 'Taken', pinned: true }],
  ] as const) {
    it(`${resource}: the owner from the token; another user's show, update and delete are 404s that change nothing`, async () => {
      const created = await client.post(resource, { json: { ...valid, user_id: 424242 }, token: tokens.ada })
      expect(created.status, JSON.stringify(created.body)).toBe(201)
      const me = await client.get('/api/auth/me', { token: tokens.ada })
      expect(created.body.data.user_id).toBe(me.body.data.id)
      const id = created.body.data.id
      const table = resource.split('/').pop()!
      const stored = await loaded.database!.first(`select * from ${table} where id = ?`, [id])

      const missing = { success: false, error: `${table === 'notes' ? 'Note' : 'Bookmark'} not found`, code: 404 }
      expect((await client.get(`${resource}/${id}`, { token: tokens.bob })).body).toEqual(missing)
      expect((await client.put(`${resource}/${id}`, { json: change, token: tokens.bob })).body).toEqual(missing)
      expect((await client.delete(`${resource}/${id}`, { token: tokens.bob })).body).toEqual(missing)
      expect((await client.get(resource, { token: tokens.bob })).body).toMatchObject({ data: [], meta: { total: 0 } })
      expect(await loaded.database!.first(`select * from ${table} where id = ?`, [id])).toEqual(stored)

      // The owner and an admin see it; the admin's edit keeps the owner.
      expect((await client.get(resource, { token: tokens.ada })).body.data.map((row: { id: number }) => row.id)).toContain(id)
      expect((await client.get(`${resource}/${id}`, { token: tokens.admin })).status).toBe(200)
      const edited = await client.put(`${resource}/${id}`, { json: change, token: tokens.admin })
      expect(edited.status, JSON.stringify(edited.body)).toBe(200)
      expect(edited.body.data.user_id).toBe(me.body.data.id)
      expect((await client.delete(`${resource}/${id}`, { token: tokens.ada })).status).toBe(204)
    })
  }
})

describe('what make:crud --owned wrote, as a project', () => {
  it('type-checks, and its generated tests (a stranger refused, the row unchanged) pass', async () => {
    const checked = await typecheck(app)
    expect(checked.output).toBe('')
    expect(app.read('tests', 'bookmarks.test.ts')).toContain("it(\"answers another user 404 for the owner's bookmark, as for a missing one, lists none, and changes nothing\"")
    const result = await projectTests(app, ['tests/bookmarks.test.ts', 'tests/notes.test.ts'])
    expect(result.output).toMatch(/✓ tests\/bookmarks\.test\.ts/)
    expect(result.output).toMatch(/✓ tests\/notes\.test\.ts/)
    expect(result.code, result.output).toBe(0)
  }, 240_000)
})
