/**
 * A post belongs to the user who created it: the author comes from the token, never from the body, and only the
 * author or an admin may edit it (anyone else: 403, the row untouched). Deleting is for admins only. Through
 * `app.fetch` on a real SQLite file; the first test upgrades a database made before posts had authors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { authPlugin, createApp, migrate, rollback, type Database } from 'svc'
import { createTestClient, type TestClient } from 'svc/testing'
import migrations from '../../database/migrations/index.ts'
import api from '../../routes/api.ts'
import { openTestDatabase, signUp, testConfig, type SignedUpUser, type TestDatabase } from '../support/test-app.ts'

const AUTHORSHIP = '20260101000900_add_user_id_to_posts'

type User = SignedUpUser

let store: TestDatabase | undefined
let db: Database
let client: TestClient
let author: User
let stranger: User
let admin: User
/** A post stored before authorship existed, as an upgraded database holds it. */
let oldPostId: number

const register = (email: string): Promise<User> => signUp(client, email)

/** When the posts here were published: they are public, so someone else's edit is a 403 (a draft's is a 404: drafts.test.ts). */
const PUBLISHED_AT = '2026-01-02T03:04:05.000Z'

async function newPost(title: string, by: User = author): Promise<number> {
  const created = await client.post('/api/v1/posts', { json: { title, body: 'Original body', published_at: PUBLISHED_AT }, token: by.token })
  expect(created.status, JSON.stringify(created.body)).toBe(201)
  return created.body.data.id
}

const row = (id: number) => db.first('select * from posts where id = ?', [id])

beforeAll(async () => {
  store = await openTestDatabase('blog-authors-')
  db = store.db
  // A database from before posts had authors, holding a post; `svc migrate` then brings it up to date.
  await migrate(db, migrations.filter((migration) => migration.name !== AUTHORSHIP))
  oldPostId = Number((await db.first<{ id: number }>("insert into posts (title, slug, published_at) values ('Old post', 'old-post', ?) returning id", [PUBLISHED_AT]))!.id)
  expect(await migrate(db, migrations)).toEqual([AUTHORSHIP])
  const config = testConfig()
  client = createTestClient(createApp({ config, database: db, api, plugins: [authPlugin()] }))
  author = await register('author@example.com')
  stranger = await register('stranger@example.com')
  admin = await register('admin@example.com')
  await db.execute("update users set role = 'admin' where id = ?", [admin.id])
})

afterAll(() => store?.remove())

describe('posts and their authors', () => {
  it('an upgraded database keeps its posts, without an author; the migration rolls back', async () => {
    expect(await db.first('select title, user_id from posts where id = ?', [oldPostId])).toEqual({ title: 'Old post', user_id: null })
    const shown = await client.get(`/api/v1/posts/${oldPostId}`)
    expect(shown.body.data).toMatchObject({ title: 'Old post', user_id: null })
    // Only admins edit a post without an author.
    expect((await client.put(`/api/v1/posts/${oldPostId}`, { json: { title: 'Taken over' }, token: stranger.token })).status).toBe(403)
    expect((await client.put(`/api/v1/posts/${oldPostId}`, { json: { title: 'Old post, edited' }, token: admin.token })).status).toBe(200)

    const rollbackStore = await openTestDatabase('blog-authors-rollback-')
    const copy = rollbackStore.db
    try {
      await migrate(copy, migrations.filter((migration) => migration.name !== AUTHORSHIP))
      await migrate(copy, migrations)
      expect(await rollback(copy, migrations)).toEqual([AUTHORSHIP])
      const columns = await copy.all<{ name: string }>("select name from pragma_table_info('posts')")
      expect(columns.map((column) => column.name)).not.toContain('user_id')
    } finally {
      rollbackStore.remove()
    }
  })

  it('the author is the user of the token: a user_id in the body is ignored', async () => {
    const created = await client.post('/api/v1/posts', { json: { title: 'Mine', user_id: stranger.id, published_at: PUBLISHED_AT }, token: author.token })
    expect(created.status).toBe(201)
    expect(created.body.data.user_id).toBe(author.id)
    expect(await db.first('select user_id from posts where id = ?', [created.body.data.id])).toEqual({ user_id: author.id })
    expect((await client.get(`/api/v1/posts/${created.body.data.id}`)).body.data.user_id).toBe(author.id)
  })

  it("a stranger's PUT is a 403 in the envelope, and the post is unchanged", async () => {
    const id = await newPost('Not yours')
    const before = await row(id)
    const denied = await client.put(`/api/v1/posts/${id}`, { json: { title: 'Defaced', body: '' }, token: stranger.token })
    expect(denied.status).toBe(403)
    expect(denied.body).toEqual({ success: false, error: 'Only the author of this post or an admin may change it', code: 403 })
    expect(await row(id)).toEqual(before)
  })

  it("the author's PUT and an admin's PUT change the post; the author stays the author", async () => {
    const id = await newPost('Draft')
    const edited = await client.put(`/api/v1/posts/${id}`, { json: { title: 'Final', body: 'Done' }, token: author.token })
    expect(edited.status).toBe(200)
    expect(edited.body.data).toMatchObject({ id, title: 'Final', body: 'Done', user_id: author.id })
    const moderated = await client.put(`/api/v1/posts/${id}`, { json: { title: 'Final (moderated)', body: 'Done', user_id: admin.id }, token: admin.token })
    expect(moderated.status).toBe(200)
    expect(moderated.body.data).toMatchObject({ title: 'Final (moderated)', user_id: author.id })
  })

  it('a PUT of a post that does not exist is a 404, for anyone', async () => {
    for (const user of [author, stranger]) {
      const missing = await client.put('/api/v1/posts/999999', { json: { title: 'Nothing' }, token: user.token })
      expect(missing.status).toBe(404)
      expect(missing.body).toEqual({ success: false, error: 'Post not found', code: 404 })
    }
  })

  it('only admins delete: the stranger and the author get 403 and the post stays; the admin deletes it', async () => {
    const id = await newPost('Delete me')
    const before = await row(id)
    for (const user of [stranger, author]) {
      const denied = await client.delete(`/api/v1/posts/${id}`, { token: user.token })
      expect(denied.status).toBe(403)
      expect(denied.body).toEqual({ success: false, error: 'Forbidden', code: 403 })
    }
    expect(await row(id)).toEqual(before)
    expect((await client.delete(`/api/v1/posts/${id}`, { token: admin.token })).status).toBe(200)
    expect(await row(id)).toBeUndefined()
  })

  it("a deleted user's posts stay, without an author (only admins edit them then)", async () => {
    const leaving = await register('leaving@example.com')
    const id = await newPost('Left behind', leaving)
    await db.execute('delete from users where id = ?', [leaving.id])
    expect(await db.first('select title, user_id from posts where id = ?', [id])).toEqual({ title: 'Left behind', user_id: null })
    expect((await client.put(`/api/v1/posts/${id}`, { json: { title: 'Adopted' }, token: stranger.token })).status).toBe(403)
    expect((await client.put(`/api/v1/posts/${id}`, { json: { title: 'Kept by the admins' }, token: admin.token })).status).toBe(200)
  })

  it("a stranger's PUT sent alongside the author's does not land: the author's edit stays", async () => {
    const id = await newPost('Contested')
    const [mine, theirs] = await Promise.all([
      // PUT replaces the post: without its published_at it would be a draft again, and the stranger's PUT, if it came
      // second, a 404 (drafts.test.ts).
      client.put(`/api/v1/posts/${id}`, { json: { title: 'Contested, by the author', published_at: PUBLISHED_AT }, token: author.token }),
      client.put(`/api/v1/posts/${id}`, { json: { title: 'Contested, by a stranger' }, token: stranger.token }),
    ])
    expect([mine.status, theirs.status]).toEqual([200, 403])
    expect(await db.first('select title, user_id from posts where id = ?', [id])).toEqual({ title: 'Contested, by the author', user_id: author.id })
  })
})
