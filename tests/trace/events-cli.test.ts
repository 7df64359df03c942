/**
 * `svc log:trace <id>` shows the events a request emitted: the blog's
 * createPost emits PostCreated (`emit(event, c)`), whose `mail-author`
 * listener is queued; the copy adds a plain listener that fails on one
 * title. Recorded in process by the app built as the CLI builds it, read
 * back by the command, `--json` and for humans.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TraceJson, TraceListJson } from '../../cli/contract/traces.ts'
import { loadApp } from '../../cli/project/load-app.ts'
import { findProject } from '../../cli/project/project.ts'
import { copyExampleApp, svcEnv, type AppCopy } from '../helpers/cli.ts'
import { runSvc, svcJson } from '../helpers/run-svc.ts'

const SECRET = 'events-cli-jwt-secret-0123456789abcdef'
const PASSWORD = 'correct-horse-battery-staple-42'

let app: AppCopy
const ids: Record<string, string> = {}

beforeAll(async () => {
  app = copyExampleApp('blog')
  app.write('.env', `APP_ENV=development\nJWT_SECRET=${SECRET}\nTRACE_PREFIX=svc\n`)
  app.write(
    'app/listeners/count-post.ts',
    `import { defineListener } from 'svc'
import { PostCreated } from '../events/post-created.ts'

export default defineListener(PostCreated, {
  name: 'count-post',
  async handle(event, { db }) {
    const post = await db.first<{ title: string }>('select title from posts where id = ?', [event.postId])
    if (post?.title === 'Explode') throw new Error('the post counter is full')
  },
})
`,
  )
  app.write('app/listeners/index.ts', app.read('app', 'listeners', 'index.ts').replace("import mailAuthor from './mail-author.ts'", "import mailAuthor from './mail-author.ts'\nimport countPost from './count-post.ts'").replace('[mailAuthor]', '[countPost, mailAuthor]'))
  const migrated = await runSvc(['migrate'], { cwd: app.dir })
  expect(migrated.exitCode, migrated.stderr).toBe(0)

  const loaded = await loadApp(findProject(app.dir, svcEnv()), {})
  try {
    const send = async (method: string, path: string, json: unknown, token?: string) => {
      const headers: Record<string, string> = { 'content-type': 'application/json' }
      if (token !== undefined) headers.authorization = `Bearer ${token}`
      const response = await loaded.app.fetch(new Request(`http://127.0.0.1:8080${path}`, { method, headers, body: JSON.stringify(json) }))
      return { status: response.status, id: response.headers.get('x-service-trace-id')!, body: (await response.json()) as { data: { token: string } } }
    }
    const registered = await send('POST', '/api/auth/register', { name: 'Ada', email: 'ada@example.com', password: PASSWORD, password_confirmation: PASSWORD })
    expect(registered.status).toBe(201)
    const token = registered.body.data.token
    const created = await send('POST', '/api/v1/posts', { title: 'Hello', body: 'First post' }, token)
    expect(created.status).toBe(201)
    ids.created = created.id
    const failed = await send('POST', '/api/v1/posts', { title: 'Explode', body: 'Second post' }, token)
    expect(failed.status).toBe(500)
    ids.failed = failed.id
    ids.register = registered.id
  } finally {
    await loaded.close()
  }
}, 60_000)

afterAll(() => app?.remove())

describe('log:trace shows events', () => {
  it('--json has each event with its plain and queued listeners, and the failure with its message', async () => {
    const created = await svcJson<TraceJson>(['log:trace', ids.created!], { cwd: app.dir })
    expect(created.trace.events).toHaveLength(1)
    expect(created.trace.events[0]).toMatchObject({
      name: 'PostCreated',
      listeners: [
        { name: 'count-post', queued: false, error: null },
        { name: 'mail-author', queued: true, duration_ms: null, error: null },
      ],
    })
    expect(typeof created.trace.events[0]!.listeners[0]!.duration_ms).toBe('number')
    expect(created.trace.events_omitted).toBe(0)

    const failed = await svcJson<TraceJson>(['log:trace', ids.failed!], { cwd: app.dir })
    expect(failed.trace.events).toMatchObject([{ name: 'PostCreated', listeners: [{ name: 'count-post', queued: false, error: 'the post counter is full' }] }])
    expect(failed.trace.events[0]!.listeners).toHaveLength(1)

    const none = await svcJson<TraceJson>(['log:trace', ids.register!], { cwd: app.dir })
    expect(none.trace.events).toEqual([])
  })

  it('prints them for humans', async () => {
    const created = await runSvc(['log:trace', ids.created!], { cwd: app.dir, env: { NO_COLOR: '1' } })
    expect(created.exitCode, created.stderr).toBe(0)
    expect(created.stdout).toContain('Events (1 event)')
    expect(created.stdout).toMatch(/\+ *[\d.]+ m?s {2}PostCreated [\d.]+ m?s\n {14}count-post {2}[\d.]+ m?s\n {14}mail-author {2}queued\n/)

    const failed = await runSvc(['log:trace', ids.failed!], { cwd: app.dir, env: { NO_COLOR: '1' } })
    expect(failed.stdout).toMatch(/count-post {2}[\d.]+ m?s {2}failed: the post counter is full/)

    const none = await runSvc(['log:trace', ids.register!], { cwd: app.dir, env: { NO_COLOR: '1' } })
    expect(none.stdout).toContain('Events (0 events)\n  (none)  an event shows here when emitted with emit(event, c)\n')
  })

  it('trace:list and log:trace --event find the traces that emitted an event, by its class name', async () => {
    for (const command of ['trace:list', 'log:trace']) {
      const list = await svcJson<TraceListJson>([command, '--event', 'PostCreated'], { cwd: app.dir })
      expect(list.filters.event).toBe('PostCreated')
      expect(list.traces.map((trace) => trace.trace_id).sort()).toEqual([ids.created, ids.failed].sort())
      // In any case, as a user types it.
      const typed = await svcJson<TraceListJson>([command, '--event', 'postcreated'], { cwd: app.dir })
      expect(typed.traces.map((trace) => trace.trace_id).sort()).toEqual([ids.created, ids.failed].sort())
      expect((await svcJson<TraceListJson>([command, '--event', 'PostPublished'], { cwd: app.dir })).traces).toEqual([])
    }
    expect((await svcJson<TraceListJson>(['trace:list'], { cwd: app.dir })).filters.event).toBeNull()
    const human = await runSvc(['trace:list', '--event', 'PostCreated'], { cwd: app.dir, env: { NO_COLOR: '1' } })
    expect(human.stdout).toContain(ids.created!.slice(0, 12))
    expect(human.stdout).not.toContain(ids.register!.slice(0, 12))
    // A trace id names one trace: --event beside it is refused, as every filter is.
    const refused = await runSvc(['log:trace', ids.created!, '--event', 'PostCreated'], { cwd: app.dir })
    expect(refused.exitCode).not.toBe(0)
    expect(refused.stderr).toContain('--event')
  })
})
