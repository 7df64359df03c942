/**
 * Drafts: a post without `published_at`, or with one still in the future, is seen by its author and admins only,
 * in `GET /api/v1/posts/drafts`. The public routes leave it out of their lists and answer its id or slug with 404,
 * to anyone (a token changes nothing there); a stranger's PUT on it is a 404 too, and changes nothing.
 * Through `app.fetch` on a real SQLite file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { authPlugin, createApp, migrate, type Database } from 'svc'
import { createTestClient, type TestClient } from 'svc/testing'
import migrations from '../../database/migrations/index.ts'
import api from '../../routes/api.ts'
import { openTestDatabase, signUp, testConfig, type SignedUpUser, type TestDatabase } from '../support/test-app.ts'

// Far enough ahead for no run of this test to reach it, and far enough back never to be in the future.
const LATER = '2999-01-01T00:00:00.000Z'
const EARLIER = '2026-01-02T03:04:05.000Z'

type User = SignedUpUser

interface Post {
  id: number
  slug: string
  title: string
}

let store: TestDatabase | undefined
let db: Database
let client: TestClient
let author: User
let stranger: User
let admin: User

const register = (email: string): Promise<User> => signUp(client, email)

async function newPost(title: string, publishedAt: string | null): Promise<Post> {
  const created = await client.post('/api/v1/posts', { json: { title, body: 'Body', published_at: publishedAt }, token: author.token })
  expect(created.status, JSON.stringify(created.body)).toBe(201)
  return created.body.data
}

/** What each public route shows of a post, read anonymously or with `token`. */
async function publicViews(post: Post, token?: string) {
  const ids = async (path: string) => ((await client.get(path, { token })).body.data as Post[]).map((each) => each.id)
  const v2 = (await client.get('/api/v2/posts', { token })).body.data as { posts: Post[] }
  return {
    byId: (await client.get(`/api/v1/posts/${post.id}`, { token })).status,
    bySlug: (await client.get(`/api/v1/posts/${post.slug}`, { token })).status,
    v2ById: (await client.get(`/api/v2/posts/${post.id}`, { token })).status,
    inList: (await ids('/api/v1/posts')).includes(post.id),
    inV2List: v2.posts.some((each) => each.id === post.id),
    inArchive: (await ids('/api/v1/posts/archive')).includes(post.id),
  }
}

const hidden = { byId: 404, bySlug: 404, v2ById: 404, inList: false, inV2List: false, inArchive: false }
const shown = { byId: 200, bySlug: 200, v2ById: 200, inList: true, inV2List: true, inArchive: true }

async function draftIds(token: string | undefined): Promise<number[]> {
  const response = await client.get('/api/v1/posts/drafts', { token })
  expect(response.status, JSON.stringify(response.body)).toBe(200)
  return (response.body.data as Post[]).map((post) => post.id)
}

beforeAll(async () => {
  store = await openTestDatabase('blog-drafts-')
  db = store.db
  await migrate(db, migrations)
  const config = testConfig()
  client = createTestClient(createApp({ config, database: db, api, plugins: [authPlugin()] }))
  author = await register('author@example.com')
  stranger = await register('stranger@example.com')
  admin = await register('admin@example.com')
  await db.execute("update users set role = 'admin' where id = ?", [admin.id])
})

afterAll(() => store?.remove())

describe('drafts', () => {
  it('a post without published_at is hidden from everyone on the public routes, a token or not', async () => {
    const draft = await newPost('A draft', null)
    expect(await publicViews(draft)).toEqual(hidden)
    expect(await publicViews(draft, stranger.token)).toEqual(hidden)
    // The public routes read no token: the author too finds a draft in /posts/drafts only.
    expect(await publicViews(draft, author.token)).toEqual(hidden)
    const missing = await client.get(`/api/v1/posts/${draft.id}`)
    expect(missing.body).toEqual({ success: false, error: 'Post not found', code: 404 })
  })

  it('a post scheduled for later is a draft until then, in the archive of its year too', async () => {
    const scheduled = await newPost('Scheduled', LATER)
    expect(await publicViews(scheduled)).toEqual(hidden)
    expect((await client.get('/api/v1/posts/archive/2999')).body.data).toEqual([])
    expect(await draftIds(author.token)).toContain(scheduled.id)
  })

  it('v2 counts only the published posts in its meta', async () => {
    const published = await newPost('Counted', EARLIER)
    await newPost('Not counted', null)
    const rows = await db.first<{ n: number }>(
      "select count(*) as n from posts where published_at is not null and published_at <= strftime('%Y-%m-%dT%H:%M:%fZ', 'now')",
    )
    const page = await client.get('/api/v2/posts')
    expect(page.body.data.meta.total).toBe(Number(rows!.n))
    expect(page.body.data.posts.map((post: Post) => post.id)).toContain(published.id)
  })

  it('/posts/drafts lists the author\'s own drafts, every draft for an admin, and needs a token', async () => {
    const draft = await newPost('Mine only', null)
    const published = await newPost('Out already', EARLIER)
    expect(await draftIds(author.token)).toContain(draft.id)
    expect(await draftIds(author.token)).not.toContain(published.id)
    expect(await draftIds(stranger.token)).not.toContain(draft.id)
    expect(await draftIds(admin.token)).toContain(draft.id)
    expect((await client.get('/api/v1/posts/drafts')).status).toBe(401)
    expect((await client.get('/api/v1/posts/drafts?per_page=0', { token: author.token })).status).toBe(422)
  })

  it("a stranger's PUT on a draft is a 404, as its GET is, and changes nothing; the author publishes it", async () => {
    const draft = await newPost('Secret plans', null)
    const before = await db.first('select * from posts where id = ?', [draft.id])
    const refused = await client.put(`/api/v1/posts/${draft.id}`, { json: { title: 'Found you', published_at: EARLIER }, token: stranger.token })
    expect(refused.body).toEqual({ success: false, error: 'Post not found', code: 404 })
    expect(await db.first('select * from posts where id = ?', [draft.id])).toEqual(before)

    const published = await client.put(`/api/v1/posts/${draft.id}`, { json: { title: 'Secret plans', published_at: EARLIER }, token: author.token })
    expect(published.status, JSON.stringify(published.body)).toBe(200)
    expect(await publicViews(draft)).toEqual(shown)
    expect(await draftIds(author.token)).not.toContain(draft.id)
    // Published, the post is public: a stranger's edit is refused as not theirs (403), not as missing.
    expect((await client.put(`/api/v1/posts/${draft.id}`, { json: { title: 'Mine now' }, token: stranger.token })).status).toBe(403)
  })

  it('an admin edits a draft; unpublishing takes a post back out of the public routes', async () => {
    const post = await newPost('Going back', EARLIER)
    expect(await publicViews(post)).toEqual(shown)
    const edited = await client.put(`/api/v1/posts/${post.id}`, { json: { title: 'Going back', published_at: null }, token: admin.token })
    expect(edited.status, JSON.stringify(edited.body)).toBe(200)
    expect(await publicViews(post)).toEqual(hidden)
    expect(await draftIds(author.token)).toContain(post.id)
  })

  it('a post titled "Drafts" gets a slug the drafts route does not hide', async () => {
    const post = await newPost('Drafts', EARLIER)
    expect(post.slug).toBe('post-drafts')
    expect((await client.get('/api/v1/posts/post-drafts')).body.data.id).toBe(post.id)
  })
})
