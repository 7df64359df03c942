/**
 * `test:regression` (issue 10's trace fixes), in process on a copy of the
 * example blog: a request whose secrets were redacted is skipped with the
 * reason, never replayed with "[REDACTED]"; a recorded user replays as the
 * user made for the replay (with their role), not as whoever has that id in
 * the fresh database (there: the seeded admin); one trace is kept per
 * method, path, body and status class; replays never write into the app's
 * storage/logs. And `replay --format curl` keeps the recorded port.
 */
import { existsSync, rmSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { migrate } from 'svc'
import type { TraceRecord } from 'svc/trace'
import { bufferIO } from '../../cli/output/io.ts'
import { importNatively } from '../../cli/project/import-file.ts'
import { loadApp, type LoadedApp } from '../../cli/project/load-app.ts'
import { loadMigrations } from '../../cli/project/migrations.ts'
import { findProject, type Project } from '../../cli/project/project.ts'
import { openProjectTraceStore } from '../../cli/trace/open-store.ts'
import { distinctTraces, replayTraces } from '../../cli/trace/regression-run.ts'
import { commandLine, prepareRequest } from '../../cli/trace/replay.ts'
import { readReplayKey, replayMarker, replaySigner } from '../../cli/trace/replay-marker.ts'
import { summaryOfRecord } from '../../cli/trace/summary.ts'
import { traceCounts } from '../../cli/lsp/handlers.ts'
import type { RegressionJson } from '../../cli/contract/traces.ts'
import { copyExampleApp, type AppCopy } from '../helpers/cli.ts'

const SECRET = 'regression-tests-jwt-secret-0123456789abcdef'
const PASSWORD = 'correct-horse-battery-staple-42'
const ENV = `APP_ENV=development\nAPP_DEBUG=false\nJWT_SECRET=${SECRET}\nPASSWORD_HASH_MEMORY_KIB=64\nPASSWORD_HASH_ITERATIONS=1\nTRACE_WRITER=thread\nTRACE_FLUSH_MS=5\n`

let copy: AppCopy
let project: Project
let recording: LoadedApp
let traces: TraceRecord[]
let recorded: TraceRecord[]
let report: RegressionJson
/** Trace id of each recorded request, by a short name. */
const ids: Record<string, string> = {}

async function send(name: string, method: string, path: string, init: { json?: unknown; token?: string; headers?: Record<string, string> } = {}): Promise<Response> {
  const headers: Record<string, string> = { host: '127.0.0.1:8080', ...init.headers }
  if (init.json !== undefined) headers['content-type'] = 'application/json'
  if (init.token !== undefined) headers.authorization = `Bearer ${init.token}`
  const response = await recording.app.fetch(
    new Request(`http://127.0.0.1:8080${path}`, { method, headers, body: init.json === undefined ? undefined : JSON.stringify(init.json) }),
    { clientAddress: '127.0.0.1' },
    { waitUntil: () => {} },
  )
  ids[name] = response.headers.get('x-service-trace-id')!
  return response
}

function result(name: string) {
  return report.results.find((entry) => entry.trace_id === ids[name])
}

beforeAll(async () => {
  copy = copyExampleApp()
  copy.write('.env', ENV)
  project = findProject(copy.dir)
  // The app's own database is not seeded: Bob, registered first, is user 1. In the fresh, seeded one, user 1 is the admin.
  recording = await loadApp(project, { importFile: importNatively })
  await migrate(recording.database!, await loadMigrations(project, importNatively))
  const register = async (name: string, email: string) => {
    const response = await send(`register ${name}`, 'POST', '/api/auth/register', {
      json: { name, email, password: PASSWORD, password_confirmation: PASSWORD },
    })
    expect(response.status).toBe(201)
    return ((await response.json()) as { data: { token: string; user: { id: number } } }).data
  }
  const bob = await register('Bob', 'bob@example.com')
  expect(bob.user.id).toBe(1)
  await send('missing post', 'GET', '/api/v1/posts/1')
  expect((await send('create', 'POST', '/api/v1/posts', { token: bob.token, json: { title: 'Hello', body: 'First post', published_at: '2026-01-02T03:04:05.000Z' } })).status).toBe(201)
  await send('found post', 'GET', '/api/v1/posts/1')
  await send('found post again', 'GET', '/api/v1/posts/1')
  expect((await send('delete as bob', 'DELETE', '/api/v1/posts/1', { token: bob.token })).status).toBe(403)
  expect((await send('login', 'POST', '/api/auth/login', { json: { email: 'bob@example.com', password: PASSWORD } })).status).toBe(200)
  expect((await send('forgot', 'POST', '/api/auth/forgot-password', { json: { email: 'admin@example.com' } })).status).toBe(200)
  // Replay markers: any client can send the header; only the one svc signed with the project's key makes a replay.
  const real = ids['found post']!
  await send('forged bare', 'GET', '/api/v1/posts/1?via=bare', { headers: { 'x-svc-replay-of': real } })
  await send('forged signature', 'GET', '/api/v1/posts/1?via=forged', { headers: { 'x-svc-replay-of': `${real}.${'A'.repeat(43)}` } })
  const signed = replayMarker(replaySigner(project), real, { method: 'GET', url: 'http://127.0.0.1:8080/api/v1/posts/1?via=svc' })
  await send('signed replay', 'GET', '/api/v1/posts/1?via=svc', { headers: { 'x-svc-replay-of': signed } })
  // The same marker, seen and sent again on other requests: it is bound to the one it was signed for.
  await send('reused on another query', 'GET', '/api/v1/posts/1?via=reused', { headers: { 'x-svc-replay-of': signed } })
  await send('reused on another method', 'DELETE', '/api/v1/posts/1?via=svc', { headers: { 'x-svc-replay-of': signed } })
  await recording.close()

  const store = await openProjectTraceStore(project)
  try {
    recorded = await store.records({ limit: 1000 })
    traces = distinctTraces(recorded, 100, readReplayKey(project))
  } finally {
    store.close()
  }
  // What the recording mailed: the replay must not add to it (it must not even create the file).
  rmSync(copy.path('storage', 'logs'), { recursive: true, force: true })
  report = await replayTraces(project, traces, { all: true, canSign: true, importFile: importNatively, io: bufferIO({ cwd: copy.dir }) })
}, 120_000)

afterAll(() => copy?.remove())

describe('test:regression --all', () => {
  it('keeps one trace per method, path, body and status class', () => {
    const kept = new Set(traces.map((trace) => trace.trace_id))
    expect(kept.has(ids['missing post']!)).toBe(true) // 404
    expect(kept.has(ids['found post again']!)).toBe(true) // 200, the newest of two
    expect(kept.has(ids['found post']!)).toBe(false)
  })

  it('skips a request whose body held a redacted secret, naming it, instead of sending "[REDACTED]"', () => {
    for (const name of ['register Bob', 'login']) {
      expect(result(name), name).toMatchObject({ status: 'skipped' })
      expect(result(name)!.reason).toContain('body.password')
    }
  })

  it("replays a recorded user as the user made for the replay, with the recorded user's role", () => {
    // Signed as user 1 of the fresh database (the seeded admin), the delete would succeed: 200, not the recorded 403.
    expect(result('delete as bob')).toMatchObject({ status: 'same', reason: null })
    expect(result('create')).toMatchObject({ status: 'same' })
  })

  it('replays what carried no secret, and writes no mail into the app storage/logs', () => {
    expect(result('forgot')).toMatchObject({ status: 'same' })
    expect(existsSync(copy.path('storage', 'logs'))).toBe(false)
    expect(report.errors).toBe(0)
    // GET replays against the app's own database, where the post now exists: the 404 recorded before it was created changed.
    expect(result('missing post')).toMatchObject({ status: 'changed' })
  })
})

describe('the replay marker', () => {
  const record = (name: string) => recorded.find((trace) => trace.trace_id === ids[name])!

  it('is a replay only when svc signed it: a real trace id without or with a wrong signature is a request of its own', () => {
    const key = readReplayKey(project)
    expect(summaryOfRecord(record('signed replay'), key).replay_of).toBe(ids['found post'])
    expect(summaryOfRecord(record('forged bare'), key).replay_of).toBeNull()
    expect(summaryOfRecord(record('forged signature'), key).replay_of).toBeNull()
    // The header is kept in the trace as the client sent it.
    expect(record('forged bare').headers['x-svc-replay-of']).toBe(ids['found post'])
    // Without the project's key (another checkout), nothing is a replay.
    expect(summaryOfRecord(record('signed replay'), undefined).replay_of).toBeNull()
  })

  it('is bound to the request it was signed for: reused on another query or method it is no replay, and says which trace it claims', () => {
    const key = readReplayKey(project)
    for (const name of ['reused on another query', 'reused on another method', 'forged bare', 'forged signature']) {
      expect(summaryOfRecord(record(name), key), name).toMatchObject({ replay_of: null, unverified_replay_of: ids['found post'] })
    }
    expect(summaryOfRecord(record('signed replay'), key)).toMatchObject({ replay_of: ids['found post'], unverified_replay_of: null })
    expect(summaryOfRecord(record('found post'), key)).toMatchObject({ replay_of: null, unverified_replay_of: null })
  })

  it('leaves out of test:regression only what svc replayed', () => {
    const kept = new Set(traces.map((trace) => trace.trace_id))
    expect(kept.has(ids['forged bare']!)).toBe(true)
    expect(kept.has(ids['forged signature']!)).toBe(true)
    expect(kept.has(ids['signed replay']!)).toBe(false)
    expect(kept.has(ids['reused on another query']!)).toBe(true)
  })

  it("counts forged replays as the route's own traces in the editor's CodeLens", () => {
    const key = readReplayKey(project)
    const summaries = ['forged bare', 'forged signature', 'signed replay', 'reused on another query'].map((name) => summaryOfRecord(record(name), key))
    expect(traceCounts({ traces: summaries }, 'GET', '/api/v1/posts/{id}')).toEqual({ traces: 3, errors: 0, replays: 1 })
  })

  it('is what a replay sends, and verifies', () => {
    const { request } = prepareRequest(record('found post'), { signer: replaySigner(project) })
    const replayed = { headers: { ...record('found post').headers, 'x-svc-replay-of': request.headers['x-svc-replay-of']! } }
    expect(summaryOfRecord({ ...record('found post'), ...replayed }, readReplayKey(project)).replay_of).toBe(ids['found post'])
  })
})

describe('replay --format curl', () => {
  it('keeps the host and port the request was sent to', () => {
    const record = traces.find((trace) => trace.trace_id === ids['found post again'])!
    const signer = replaySigner(project)
    const { request } = prepareRequest(record, { signer })
    expect(request.url).toBe('http://127.0.0.1:8080/api/v1/posts/1')
    expect(commandLine(request, 'curl', false)).toContain(`'http://127.0.0.1:8080/api/v1/posts/1'`)
    expect(prepareRequest(record, { url: 'http://api.test:9000', signer }).request.url).toBe('http://api.test:9000/api/v1/posts/1')
    // A Host header that is not a plain host[:port] is never pasted into a command.
    expect(prepareRequest({ ...record, headers: { ...record.headers, host: "evil'; rm -rf ~" } }, { signer }).request.url).toBe('http://localhost/api/v1/posts/1')
  })
})
