/**
 * The example blog's background work, as its README tour shows it: creating
 * a post takes an Idempotency-Key (required on v2, optional on v1), queues
 * the listener that mails the author, `svc queue:work --stop-when-empty`
 * sends the mail (storage/logs/mail.log), and the schedule lists and runs
 * its prune beside svc's own.
 */
import { existsSync, readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestClient, type TestClient } from 'svc/testing'
import { importNatively } from '../../cli/project/import-file.ts'
import { loadApp, type LoadedApp } from '../../cli/project/load-app.ts'
import { findProject } from '../../cli/project/project.ts'
import { copyExampleApp, type AppCopy } from '../helpers/cli.ts'
import { runSvc, svcJson } from '../helpers/run-svc.ts'
import { JWT_SECRET } from './fixture.ts'

const PASSWORD = 'correct-horse-42'
let app: AppCopy
let loaded: LoadedApp
let client: TestClient
let token: string

beforeAll(async () => {
  app = copyExampleApp('blog')
  app.write('.env', `APP_ENV=test\nJWT_SECRET=${JWT_SECRET}\nPASSWORD_HASH_MEMORY_KIB=64\nPASSWORD_HASH_ITERATIONS=1\n`)
  expect((await runSvc(['migrate'], { cwd: app.dir })).exitCode).toBe(0)
  loaded = await loadApp(findProject(app.dir, process.env), { importFile: importNatively, trace: false })
  client = createTestClient(loaded.app)
  const registered = await client.post('/api/auth/register', { json: { name: 'Ada', email: 'ada@example.com', password: PASSWORD, password_confirmation: PASSWORD } })
  expect(registered.status).toBe(201)
  token = registered.body.data.token
})

afterAll(async () => {
  await loaded?.close()
  app?.remove()
})

function create(title: string, key?: string, version = 'v2') {
  return client.post(`/api/${version}/posts`, {
    // Published: the author's mail is then "is live" (a draft's says "saved": examples/blog/tests/feature/mail-author.test.ts).
    json: { title, body: 'First post', published_at: '2026-01-02T03:04:05.000Z' },
    headers: { authorization: `Bearer ${token}`, ...(key === undefined ? {} : { 'idempotency-key': key }) },
  })
}

describe('the example blog in the background', () => {
  it('creating a post takes an Idempotency-Key: required on v2, replayed on a retry', async () => {
    const missing = await create('Hello')
    expect(missing.status).toBe(400)
    const first = await create('Hello', 'c0ffee-1')
    expect(first.status).toBe(201)
    expect(first.body).toMatchObject({ success: true, message: 'Post created', data: { title: 'Hello', slug: 'hello' } })
    const retry = await create('Hello', 'c0ffee-1')
    expect(retry.status).toBe(201)
    expect(retry.headers.get('idempotent-replayed')).toBe('true')
    expect(JSON.stringify(retry.body)).toBe(JSON.stringify(first.body))
    expect((await create('Hello again', 'c0ffee-1')).status).toBe(422)
    // v1 takes the header when sent, and works without it.
    expect((await create('Plain', undefined, 'v1')).status).toBe(201)
    expect((await create('Keyed', 'c0ffee-2', 'v1')).status).toBe(201)
    expect((await create('Keyed', 'c0ffee-2', 'v1')).headers.get('idempotent-replayed')).toBe('true')
    const posts = await loaded.database!.all<{ title: string }>('select title from posts order by id')
    expect(posts.map((post) => post.title)).toEqual(['Hello', 'Plain', 'Keyed'])
  })

  it('each created post queued one mail-author listener; queue:work sends the mails to storage/logs/mail.log', async () => {
    const queued = await loaded.database!.all<{ name: string; payload: string }>('select name, payload from jobs order by id')
    expect(queued.map((job) => [job.name, JSON.parse(job.payload).listener])).toEqual([
      ['svc.listener', 'mail-author'],
      ['svc.listener', 'mail-author'],
      ['svc.listener', 'mail-author'],
    ])
    const log = app.path('storage', 'logs', 'mail.log')
    const before = existsSync(log) ? readFileSync(log, 'utf8') : ''
    expect(before).not.toContain('is live')

    const work = await runSvc(['queue:work', '--stop-when-empty'], { cwd: app.dir })
    expect(work.exitCode).toBe(0)
    expect(work.stdout.match(/svc\.listener mail-author #\d+ \(default attempt 1\/3\) DONE/g)).toHaveLength(3)
    const mails = readFileSync(log, 'utf8')
    expect(mails).toContain('To: ada@example.com\nSubject: Your post "Hello" is live\n\nHello Ada,\n\nyour post "Hello" is live:\nhttp://127.0.0.1:8080/api/v1/posts/hello')
    expect(mails).toContain('<p>your post <a href="http://127.0.0.1:8080/api/v1/posts/hello">Hello</a> is live.</p>')
    expect(await svcJson(['queue:status'], { cwd: app.dir })).toMatchObject({ queues: [], totals: { pending: 0, failed: 0 } })
  })

  it("lists the schedule (its prune beside svc's own) and runs its prune", async () => {
    const list = await svcJson(['schedule:list'], { cwd: app.dir })
    expect(list.tasks.map((task: { name: string }) => task.name)).toEqual(['pruneFailedJobs', 'svc:prune-idempotency-keys', 'svc:prune-refresh-tokens', 'svc:prune-traces'])
    await loaded.database!.execute(
      "insert into failed_jobs (queue, name, payload, attempts, max_attempts, error, failed_at) values ('default', 'x', 'null', 3, 3, 'old', '2020-01-01T00:00:00.000Z')",
    )
    const run = await svcJson(['schedule:run', '--task', 'pruneFailedJobs'], { cwd: app.dir })
    expect(run.results).toMatchObject([{ task: 'pruneFailedJobs', status: 'ran' }])
    expect(await loaded.database!.all('select * from failed_jobs')).toEqual([])
  })
})
