/**
 * Creating a post inserts it, then hands its queued listener (mail-author) to
 * the database queue. When that hand-off fails (here: the queue's tables do not
 * exist yet), the 500 must mean no post was created, so that a client's retry
 * creates one post and not a duplicate (`title-2`). In process, on a real
 * SQLite file, with the example's listener and the `database` queue driver.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import {
  authPlugin,
  createApp,
  createQueue,
  databaseQueueDriver,
  forget,
  listen,
  listenerQueue,
  migrate,
  useListenerQueue,
  type Database,
} from 'svc'
import { createTestClient, type TestClient } from 'svc/testing'
import mailAuthor from '../../app/listeners/mail-author.ts'
import migrations from '../../database/migrations/index.ts'
import api from '../../routes/api.ts'
import { openTestDatabase, signUp, testConfig, type TestDatabase } from '../support/test-app.ts'

const JOBS_MIGRATION = '20260101000700_create_jobs_table'

let store: TestDatabase | undefined
let db: Database
let client: TestClient
let writer: string
/** When set, a statement it matches fails with "database is locked" (a busy database). */
let failing: RegExp | undefined

/** The database, except that a statement matching `failing` throws as a busy database would. */
function failingWhen(database: Database): Database {
  const wrap = (target: Database): Database =>
    new Proxy(target, {
      get(object, name, receiver) {
        if (name === 'withObserver') return (observer: Parameters<Database['withObserver']>[0]) => wrap(object.withObserver(observer))
        if (name !== 'execute' && name !== 'first' && name !== 'all') return Reflect.get(object, name, receiver)
        return async (statement: string | { sql: string }, ...rest: unknown[]) => {
          const sql = typeof statement === 'string' ? statement : statement.sql
          if (failing?.test(sql)) throw new Error('SQLITE_BUSY: database is locked')
          return (object[name] as (...args: unknown[]) => unknown).call(object, statement, ...rest)
        }
      },
    })
  return wrap(database)
}

/** The queue's tables gone, and their migration not run: as on a database `svc migrate` has not brought up to date. */
async function dropQueueTables(): Promise<void> {
  await db.batch(['drop table if exists failed_jobs', 'drop table if exists jobs', { sql: 'delete from migrations where name = ?', args: [JOBS_MIGRATION] }])
}

async function postCount(): Promise<number> {
  const row = await db.first<{ total: number }>('select count(*) as total from posts')
  return Number(row!.total)
}

beforeAll(async () => {
  store = await openTestDatabase('blog-create-emit-')
  db = store.db
  await migrate(db, migrations)
  const config = testConfig()
  const database = failingWhen(db)
  listen(mailAuthor)
  useListenerQueue(listenerQueue(createQueue(databaseQueueDriver(database))))
  client = createTestClient(createApp({ config, database, api, plugins: [authPlugin()] }))
  writer = (await signUp(client, 'writer@example.com')).token
})

afterAll(() => {
  // The listener registry is one per process, and test files share processes.
  useListenerQueue(undefined)
  forget(mailAuthor)
  store?.remove()
})

describe('creating a post whose listener cannot be queued', () => {
  it('answers 500 in the envelope and keeps no post; once the queue tables exist, the same request creates exactly one', async () => {
    await dropQueueTables()
    const failed = await client.post('/api/v1/posts', { json: { title: 'Queued' }, token: writer })
    expect(failed.status).toBe(500)
    expect(failed.body).toMatchObject({ success: false, code: 500 })
    expect(await db.all("select slug from posts where title = 'Queued'")).toEqual([])

    await migrate(db, migrations)
    const created = await client.post('/api/v1/posts', { json: { title: 'Queued' }, token: writer })
    expect(created.status).toBe(201)
    expect(created.body.data.slug).toBe('queued')
    expect(await db.all("select title, slug from posts where title = 'Queued'")).toEqual([{ title: 'Queued', slug: 'queued' }])
    const jobs = await db.all<{ payload: string }>('select payload from jobs')
    expect(jobs.map((job) => JSON.parse(job.payload))).toEqual([{ listener: 'mail-author', event: { postId: created.body.data.id, authorId: expect.any(Number) } }])
  })

  it('with an Idempotency-Key, the retry of a create that failed so creates the post once', async () => {
    await migrate(db, migrations)
    const send = () => client.post('/api/v2/posts', { json: { title: 'Keyed' }, token: writer, headers: { 'Idempotency-Key': 'create-keyed-1' } })
    failing = /^\s*insert into jobs/i
    try {
      const failed = await send()
      expect(failed.status).toBe(500)
    } finally {
      failing = undefined
    }
    expect(await db.all("select slug from posts where title = 'Keyed'")).toEqual([])

    const created = await send()
    expect(created.status).toBe(201)
    expect(await db.all("select slug from posts where title = 'Keyed'")).toEqual([{ slug: 'keyed' }])
  })

  it('says the post exists when the post cannot be taken back either (a busy database)', async () => {
    await migrate(db, migrations)
    const before = await postCount()
    failing = /^\s*(insert into jobs|delete from posts)/i
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {})
    try {
      const response = await client.post('/api/v1/posts', { json: { title: 'Busy' }, token: writer })
      // The 500 is an HttpError (not logged by svc): the emit's error, its cause, is on stderr all the same.
      expect(logged.mock.calls.map((call) => String(call[0])).join('\n')).toMatch(/\[svc\] 500 POST \/api\/v1\/posts .*database is locked/)
      expect(response.status).toBe(500)
      const kept = await db.first<{ id: number; slug: string }>("select id, slug from posts where title = 'Busy'")
      expect(response.body).toMatchObject({
        success: false,
        code: 500,
        error: `Post ${kept!.id} was created (/posts/busy), but its author could not be told: do not create it again`,
      })
    } finally {
      failing = undefined
      logged.mockRestore()
    }
    expect(await postCount()).toBe(before + 1)
  })
})
