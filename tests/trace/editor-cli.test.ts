/**
 * What the editor reads from the trace commands, in a workspace laid out as
 * this repo is (the app in a subfolder, auth on, several users): list lines
 * with the query string, the error message and the replay they are;
 * `--ignore`; `trace:users`; replaying as a user or with a saved token
 * (`--as`, `--header`); a regression test of an authenticated trace signing
 * in inside the test; `log:trace`'s `writes`; `log:stats`' timeline.
 */
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AuthTokenJson } from '../../cli/contract/routes.ts'
import type { ReplayJson, StatsJson, TraceJson, TraceListJson, TraceUsersJson } from '../../cli/contract/traces.ts'
import { runVitestIn } from '../helpers/cli.ts'
import { runSvc, svcJson } from '../helpers/run-svc.ts'
import { tracedGet } from '../helpers/traced-request.ts'
import { repoWorkspace, type RepoWorkspace } from '../extension/helpers.ts'

let workspace: RepoWorkspace

beforeAll(async () => {
  workspace = await repoWorkspace()
}, 120_000)
afterAll(() => workspace?.remove())

const json = <T>(args: string[]) => svcJson<T>(args, { cwd: workspace.dir })
const id = (name: string) => workspace.named[name]!.traceId!

describe('trace lists for the editor', () => {
  it('give the query string, the error message, and leave out --ignore paths before counting the limit', async () => {
    const all = await json<TraceListJson>(['trace:list', '--limit=100'])
    const list = all.traces.find((trace) => trace.trace_id === id('list'))!
    expect(list).toMatchObject({ path: '/api/v1/posts', query: 'page=1', error_message: null, replay_of: null })
    expect(all.traces.find((trace) => trace.trace_id === id('notFound'))).toMatchObject({ exception: 'HttpError', error_message: 'Post not found' })

    const healthy = await json<TraceListJson>(['trace:list', '--limit=3', '--ignore=/health/*'])
    expect(healthy.filters.ignore).toEqual(['/health/*'])
    expect(healthy.traces.map((trace) => trace.path)).toEqual(['/api/auth/me', '/api/v1/posts/2', '/loop'])
    const twice = await json<TraceListJson>(['log:trace', '--limit=100', '--ignore=/health/live', '--ignore', 'ready'])
    expect(twice.traces.some((trace) => trace.path.startsWith('/health/'))).toBe(false)
    expect(twice.traces).toHaveLength(all.traces.length - 2)
  })

  it('mark what a replay sent as a replay of its trace', async () => {
    const replay = await json<ReplayJson>(['replay', id('list')])
    expect(replay.response?.status).toBe(200)
    const { traces } = await json<TraceListJson>(['trace:list', '--limit=1'])
    expect(traces[0]).toMatchObject({ trace_id: replay.response!.trace_id, replay_of: id('list'), unverified_replay_of: null })
  })

  it("flag a replay's marker copied onto another request as unverified, and count that request as its own", async () => {
    const replay = await json<ReplayJson>(['replay', id('list')])
    const marker = replay.request.headers['x-svc-replay-of']!
    const reused = await tracedGet(workspace.dir, '/api/v1/posts?page=2', { 'x-svc-replay-of': marker })
    const { summary } = await json<TraceJson>(['log:trace', reused])
    expect(summary).toMatchObject({ trace_id: reused, replay_of: null, unverified_replay_of: id('list') })
    const view = await runSvc(['log:trace', reused], { cwd: workspace.dir })
    expect(view.stderr).toContain(`claims a replay of ${id('list')}, but does not verify`)
    // The same marker on the request it was signed for is the replay it says.
    const resent = await tracedGet(workspace.dir, '/api/v1/posts?page=1', { 'x-svc-replay-of': marker })
    expect((await json<TraceJson>(['log:trace', resent])).summary).toMatchObject({ replay_of: id('list'), unverified_replay_of: null })
  })

  it('say whether a trace wrote to the database', async () => {
    const update = await json<TraceJson>(['log:trace', id('update')])
    expect(update.writes).toBe(true)
    expect(update.summary).toMatchObject({ trace_id: id('update'), method: 'PUT', status_code: 200, user_id: workspace.users.ada.id })
    expect((await json<TraceJson>(['log:trace', id('list')])).writes).toBe(false)
    // A write refused before it ran (403) wrote nothing.
    expect((await json<TraceJson>(['log:trace', id('forbidden')])).writes).toBe(false)
  })
})

describe('trace:users', () => {
  it('lists the signed-in users of the recent traces, named from the app database, newest first', async () => {
    const { users, scanned } = await json<TraceUsersJson>(['trace:users'])
    expect(scanned).toBeGreaterThanOrEqual(workspace.sent.length)
    expect(users.map((user) => user.email)).toEqual(['ada@example.com', 'admin@example.com', 'user@example.com'])
    expect(users[0]).toMatchObject({ user_id: workspace.users.ada.id, name: 'Ada', role: 'user' })
    expect(users.find((user) => user.email === 'admin@example.com')?.role).toBe('admin')
    expect(users[0]!.traces).toBe(3)
    const human = await runSvc(['trace:users'], { cwd: workspace.dir })
    expect(human.stdout).toContain('ada@example.com')
  })
})

describe('authenticated replay', () => {
  it('signs in as the user who made the request by default, goes without a token with --anonymous, and answers as the user given with --as or a saved token (--header)', async () => {
    // The trace does not keep the bearer token: a replay without one would answer 401, not what is being debugged.
    const recorded = await json<ReplayJson>(['replay', id('me:reader')])
    expect(recorded.response?.status).toBe(200)
    expect((recorded.response?.body as { data: { email: string } }).data.email).toBe('user@example.com')
    expect(recorded).toMatchObject({ signed_in_as: 'user@example.com', redacted: [] })
    const noted = await runSvc(['replay', id('me:reader')], { cwd: workspace.dir })
    expect(noted.stderr).toContain('Signed in as user@example.com, who made the request')
    expect(noted.stderr).toContain('--anonymous')

    const bare = await json<ReplayJson>(['replay', id('me:reader'), '--anonymous'])
    expect(bare.response?.status).toBe(401)
    expect(bare.redacted).toContain('header authorization')
    expect(bare.signed_in_as).toBeNull()
    const both = await runSvc(['replay', id('me:reader'), '--anonymous', '--as=ada@example.com', '--json'], { cwd: workspace.dir })
    expect(both.exitCode).not.toBe(0)
    expect(both.stderr).toContain('E_BAD_OPTION')

    const asAda = await json<ReplayJson>(['replay', id('me:reader'), '--as=ada@example.com'])
    expect(asAda.response?.status).toBe(200)
    expect((asAda.response?.body as { data: { email: string } }).data.email).toBe('ada@example.com')
    expect(asAda.redacted).toEqual([])
    expect(asAda.signed_in_as).toBe('ada@example.com')
    const asAdaHuman = await runSvc(['replay', id('me:reader'), '--as=ada@example.com'], { cwd: workspace.dir })
    expect(asAdaHuman.stderr).not.toContain('who made the request')

    const login = await json<ReplayJson>(['replay', id('login:admin'), `--set=password=${workspace.users.admin.password}`])
    const token = (login.response!.body as { data: { token: string } }).data.token
    const saved = await json<ReplayJson>(['replay', id('me:reader'), '--header', `Authorization: Bearer ${token}`])
    expect((saved.response?.body as { data: { email: string } }).data.email).toBe('admin@example.com')

    const bad = await runSvc(['replay', id('me:reader'), '--header', 'no colon here', '--json'], { cwd: workspace.dir })
    expect(bad.exitCode).not.toBe(0)
    expect(bad.stderr).toContain('--header takes "Name: value"')
  })

  it('fix replays an authenticated failure as its user: the failure itself, not a 401', async () => {
    const fix = await runSvc(['fix', id('forbidden'), '--json'], { cwd: workspace.dir })
    expect(fix.exitCode).toBe(1)
    expect(JSON.parse(fix.stdout)).toMatchObject({ recorded_status: 403, current_status: 403, fixed: false })
  })

  it('signs nobody by default where it cannot: in production, and for a user the database no longer has', async () => {
    const production = await runSvc(['replay', id('me:reader'), '--format=curl', '--json'], { cwd: workspace.dir, env: { APP_ENV: 'production' } })
    expect(production.exitCode, production.stderr).toBe(0)
    const printed = JSON.parse(production.stdout) as ReplayJson
    expect(printed).toMatchObject({ signed_in_as: null, redacted: ['header authorization'] })
    expect(printed.command).not.toMatch(/authorization/i)

    const gone = await runSvc(['replay', id('me:reader'), '--format=curl', '--json'], { cwd: workspace.dir, env: { DATABASE_URL: `file:${join(workspace.dir, 'storage', 'empty.sqlite')}` } })
    expect(gone.exitCode, gone.stderr).toBe(0)
    expect(JSON.parse(gone.stdout)).toMatchObject({ signed_in_as: null, redacted: ['header authorization'] })
  })

  it('copies as curl to the given server with a fresh token (--url, --as)', async () => {
    const curl = await json<ReplayJson>(['replay', id('me:admin'), '--format=curl', '--url=http://127.0.0.1:8123', '--as=admin@example.com'])
    expect(curl.dry_run).toBe(true)
    expect(curl.command).toMatch(/^curl -X GET 'http:\/\/127\.0\.0\.1:8123\/api\/auth\/me' .*-H 'authorization: Bearer ey/)
  })
})

describe('auth:token', () => {
  it('signs a token the app accepts, for a user of its database; an unknown user is a clear error', async () => {
    const signed = await json<AuthTokenJson>(['auth:token', 'ada@example.com'])
    expect(signed).toMatchObject({ user: { id: workspace.users.ada.id, email: 'ada@example.com', role: 'user' }, token_type: 'Bearer', expires_in: 3600 })
    const replay = await json<ReplayJson>(['replay', id('me:reader'), '--header', `Authorization: Bearer ${signed.token}`])
    expect((replay.response?.body as { data: { email: string } }).data.email).toBe('ada@example.com')
    const unknown = await runSvc(['auth:token', 'nobody@example.com'], { cwd: workspace.dir })
    expect(unknown.exitCode).not.toBe(0)
    expect(unknown.stderr).toContain('E_AS_UNKNOWN_USER')
    const production = await runSvc(['auth:token', 'ada@example.com'], { cwd: workspace.dir, env: { APP_ENV: 'production' } })
    expect(production.stderr).toContain('E_AS_PRODUCTION')
  })
})

describe('a regression test of an authenticated trace', () => {
  it('signs in inside the test as the recorded user, and passes', async () => {
    const written = await json<ReplayJson>(['replay', id('me:reader'), '--test'])
    expect(written.test_warnings).toEqual([])
    // Relative to the project root (the folder of package.json), not to the app folder.
    expect(written.test_file).toMatch(/^tests\/regression\/get-api-auth-me-[0-9a-f]{8}\.test\.ts$/)
    const source = workspace.read(written.test_file!)
    expect(source).toContain('"as": "user@example.com"')
    expect(source).not.toMatch(/authorization/i)
    const run = await runVitestIn(workspace.dir, written.test_file!)
    expect(run.code, run.stdout + run.stderr).toBe(0)
  }, 120_000)

  it('says so when the test cannot pass: a redacted secret it would send, a user the database lacks', async () => {
    // Replaying the login to write the test would send the placeholder: refused unless asked (docs/traces.md).
    const refused = await runSvc(['replay', id('login:admin'), '--test', '--json'], { cwd: workspace.dir })
    expect(refused.exitCode).toBe(1)
    expect(refused.stderr).toContain('E_REPLAY_REDACTED')
    const login = await json<ReplayJson>(['replay', id('login:admin'), '--test', '--send-redacted'])
    expect(login.test_warnings.join('\n')).toContain('[REDACTED] for body.password')

    const gone = await runSvc(['replay', id('me:reader'), '--test', '--json'], { cwd: workspace.dir, env: { DATABASE_URL: `file:${join(workspace.dir, 'storage', 'empty.sqlite')}` } })
    expect(gone.exitCode).not.toBe(0)
    expect(gone.stderr).toContain('E_TEST_NEEDS_USER')
    expect(gone.stderr).toContain('--as=<email>')
  })
})

describe('log:stats', () => {
  it('has a timeline of p50/p95 and errors, in one-minute buckets for traces of a few minutes', async () => {
    const stats = await json<StatsJson>(['log:stats'])
    expect(stats.bucket_ms).toBe(60_000)
    expect(stats.timeline.reduce((sum, bucket) => sum + bucket.count, 0)).toBe(stats.total)
    for (const bucket of stats.timeline) expect(bucket.p95_ms).toBeGreaterThanOrEqual(bucket.p50_ms)
    expect(stats.timeline.map((bucket) => bucket.start)).toEqual([...stats.timeline.map((bucket) => bucket.start)].sort())
  })
})
