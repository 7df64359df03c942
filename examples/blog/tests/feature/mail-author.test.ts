/**
 * The mail to the author of a new post (the mail-author listener, run here as a worker runs it): a published post
 * is "live", with its link; a draft, or a post scheduled for later, is "saved", with the link to the author's
 * drafts, since its own link answers 404 to everyone until it is published (drafts.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createQueue, memoryMailer, migrate, syncQueueDriver, type Database } from 'svc'
import { PostCreated } from '../../app/events/post-created.ts'
import mailAuthor from '../../app/listeners/mail-author.ts'
import migrations from '../../database/migrations/index.ts'
import { openTestDatabase, testConfig, type TestDatabase } from '../support/test-app.ts'

let store: TestDatabase | undefined
let db: Database
let authorId: number

const config = testConfig({ APP_URL: 'https://blog.example' })

/** Stores a post of the author's and runs the listener on its event: the mail it sends. */
async function mailFor(title: string, publishedAt: string | null) {
  const slug = title.toLowerCase().replace(/[^a-z0-9]+/g, '-')
  const post = await db.first<{ id: number }>('insert into posts (title, slug, published_at, user_id) values (?, ?, ?, ?) returning id', [title, slug, publishedAt, authorId])
  const mailer = memoryMailer()
  // The listener dispatches nothing; a worker's context has a queue all the same.
  const queue = createQueue(syncQueueDriver(), { db, mailer, config })
  await mailAuthor.handle(new PostCreated(post!.id, authorId), { db, mailer, config, queue })
  expect(mailer.messages).toHaveLength(1)
  return mailer.messages[0]!
}

beforeAll(async () => {
  store = await openTestDatabase('blog-mail-author-')
  db = store.db
  await migrate(db, migrations)
  const user = await db.first<{ id: number }>("insert into users (name, email, password) values ('Ada', 'ada@example.com', '!') returning id")
  authorId = user!.id
})

afterAll(() => store?.remove())

describe('the mail to the author', () => {
  it('of a published post: it is live, with its link', async () => {
    const mail = await mailFor('Out now', '2026-01-02T03:04:05.000Z')
    expect(mail).toMatchObject({ to: 'ada@example.com', subject: 'Your post "Out now" is live' })
    expect(mail.text).toContain('https://blog.example/api/v1/posts/out-now')
  })

  it('of a draft: saved, seen by the author and admins only, with the link to the drafts, not to the post', async () => {
    const mail = await mailFor('Not yet', null)
    expect(mail.subject).toBe('Your draft "Not yet" is saved')
    expect(mail.text).toContain('only you and the admins see it, until you give it a published_at:\nhttps://blog.example/api/v1/posts/drafts')
    expect(mail.text).not.toContain('/api/v1/posts/not-yet')
    expect(mail.html).toContain('<a href="https://blog.example/api/v1/posts/drafts">your drafts</a>')
  })

  it('of a post scheduled for later: saved until it goes live', async () => {
    const mail = await mailFor('Later', '2999-01-01T00:00:00.000Z')
    expect(mail.subject).toBe('Your post "Later" is scheduled')
    expect(mail.text).toContain('until 2999-01-01T00:00:00.000Z, when it goes live')
  })
})
