/**
 * Two writes to one post at once, through `app.fetch` on a real SQLite file.
 * The database handle lets another request run to its end just before a
 * chosen statement of the first one, so the interleaving is certain, not
 * left to timing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { authPlugin, createApp, migrate, type Database } from 'svc'
import { createTestClient, type TestClient } from 'svc/testing'
import migrations from '../../database/migrations/index.ts'
import api from '../../routes/api.ts'
import { openTestDatabase, signUp, testConfig, type TestDatabase } from '../support/test-app.ts'


let store: TestDatabase | undefined
let db: Database
let client: TestClient
let writer: string
let admin: string
/** Runs once, before the first statement that matches, then is gone. */
let before: { sql: RegExp; run: () => Promise<unknown> } | undefined

/** The database, except that `before.run` goes first when a statement matches `before.sql`. */
function interleaving(database: Database): Database {
  const wrap = (target: Database): Database =>
    new Proxy(target, {
      get(object, name, receiver) {
        if (name === 'withObserver') return (observer: Parameters<Database['withObserver']>[0]) => wrap(object.withObserver(observer))
        if (name !== 'execute' && name !== 'first' && name !== 'all') return Reflect.get(object, name, receiver)
        return async (statement: string | { sql: string }, ...rest: unknown[]) => {
          const sql = typeof statement === 'string' ? statement : statement.sql
          const hook = before
          if (hook !== undefined && hook.sql.test(sql)) {
            before = undefined
            await hook.run()
          }
          return (object[name] as (...args: unknown[]) => unknown).call(object, statement, ...rest)
        }
      },
    })
  return wrap(database)
}

const register = (email: string) => signUp(client, email)

async function newPost(title: string): Promise<number> {
  const created = await client.post('/api/v1/posts', { json: { title }, token: writer })
  expect(created.status, JSON.stringify(created.body)).toBe(201)
  return created.body.data.id
}

beforeAll(async () => {
  store = await openTestDatabase('blog-races-')
  db = store.db
  await migrate(db, migrations)
  const config = testConfig()
  client = createTestClient(createApp({ config, database: interleaving(db), api, plugins: [authPlugin()] }))
  writer = (await register('writer@example.com')).token
  const root = await register('admin@example.com')
  await db.execute("update users set role = 'admin' where id = ?", [root.id])
  admin = root.token
})

afterAll(() => store?.remove())

describe('concurrent writes to the posts', () => {
  it('a PUT whose post is deleted under it is a 404, not a 200 with no data', async () => {
    const id = await newPost('Edited or gone')
    let deleted: { status: number } | undefined
    before = { sql: /^\s*update posts/i, run: async () => (deleted = await client.delete(`/api/v1/posts/${id}`, { token: admin })) }
    const put = await client.put(`/api/v1/posts/${id}`, { json: { title: 'Edited' }, token: writer })
    expect(deleted?.status).toBe(200)
    expect(put.status).toBe(404)
    expect(put.body).toEqual({ success: false, error: 'Post not found', code: 404 })
    expect(await db.first('select id from posts where id = ?', [id])).toBeUndefined()
  })

  it('of two DELETEs of one post, one is 200 and the other 404', async () => {
    const id = await newPost('Deleted twice')
    let other: { status: number } | undefined
    before = { sql: /^\s*delete from posts/i, run: async () => (other = await client.delete(`/api/v1/posts/${id}`, { token: admin })) }
    const first = await client.delete(`/api/v1/posts/${id}`, { token: admin })
    expect(other?.status).toBe(200)
    expect(first.status).toBe(404)
  })

  it('two posts with one title at once both get a slug of their own (the second was a 500)', async () => {
    let other: { status: number; body: any } | undefined
    before = { sql: /^\s*insert into posts/i, run: async () => (other = await client.post('/api/v1/posts', { json: { title: 'Same title' }, token: admin })) }
    const first = await client.post('/api/v1/posts', { json: { title: 'Same title' }, token: writer })
    expect(other?.status).toBe(201)
    expect(first.status).toBe(201)
    expect([other?.body.data.slug, first.body.data.slug].sort()).toEqual(['same-title', 'same-title-2'])
    expect(await db.all("select slug from posts where title = 'Same title' order by slug")).toEqual([{ slug: 'same-title' }, { slug: 'same-title-2' }])
  })
})
