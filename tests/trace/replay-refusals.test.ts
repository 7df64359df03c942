/**
 * What replay, fix and test:regression must not send, and how they say so
 * (a user test of the trace tools): bytes Node's HTTP parser refused (traced
 * as `- /`: no request line could be read), a login whose password the trace does
 * not keep (replayed as "[REDACTED]", five replays locked the account), a
 * body the app refused for its size (BODY_LIMIT, not TRACE_BODY_LIMIT); and
 * how fix words a trace that did not fail, and where its notes go.
 *
 * Recorded through a real server on a free port (svc/node's `serve`, so the
 * refused bytes go through client-error.ts) over a copy of the example blog;
 * the commands run in-process (tests/helpers/run-svc.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sendRaw } from '../helpers/server.ts'
import { migrate } from 'svc'
import { serve } from 'svc/node'
import { importNatively } from '../../cli/project/import-file.ts'
import { loadApp } from '../../cli/project/load-app.ts'
import { loadMigrations } from '../../cli/project/migrations.ts'
import { findProject } from '../../cli/project/project.ts'
import { replayRecorded, type RecordedCase } from '../../cli/trace/regression-api.ts'
import { targetBase } from '../../cli/trace/replay.ts'
import { addWebRoutes, copyExampleApp, type AppCopy } from '../helpers/cli.ts'
import { runSvc } from '../helpers/run-svc.ts'

const PASSWORD = 'correct-horse-battery-staple-42'
const ENV = [
  'APP_ENV=development',
  'APP_DEBUG=true',
  'JWT_SECRET=replay-refusals-jwt-secret-0123456789abcdef',
  'PASSWORD_HASH_MEMORY_KIB=64',
  'PASSWORD_HASH_ITERATIONS=1',
  'TRACE_WRITER=thread',
  'TRACE_FLUSH_MS=5',
  'TRACE_BODY_LIMIT=4000',
  '',
].join('\n')

let copy: AppCopy
/** Trace id of each recorded request, by a short name. */
const ids: Record<string, string> = {}

async function svc(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const { exitCode, stdout, stderr } = await runSvc(args, { cwd: copy.dir })
  return { code: exitCode, stdout, stderr }
}

beforeAll(async () => {
  copy = copyExampleApp()
  copy.write('.env', ENV)
  addWebRoutes(copy, "  r.get('/boom', function boom() {\n    throw new TypeError('the widget exploded')\n  })")
  const project = findProject(copy.dir)
  const recording = await loadApp(project, { importFile: importNatively })
  await migrate(recording.database!, await loadMigrations(project, importNatively))
  const server = await serve(recording.app, { port: 0, host: '127.0.0.1' })
  const base = `http://127.0.0.1:${server.port}`
  const send = async (name: string, method: string, path: string, init: { json?: unknown; body?: string; token?: string } = {}) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    if (init.token !== undefined) headers.authorization = `Bearer ${init.token}`
    const response = await fetch(`${base}${path}`, { method, headers, body: init.body ?? (init.json === undefined ? undefined : JSON.stringify(init.json)) })
    ids[name] = response.headers.get('x-service-trace-id')!
    return { status: response.status, body: (await response.json()) as { data: { token: string } } }
  }
  try {
    ids.garbage = await sendRaw(server.port, '\u0016\u0003\u0001 not http at all\r\n\r\n')
    expect((await send('register', 'POST', '/api/auth/register', { json: { name: 'Ada', email: 'ada@example.com', password: PASSWORD, password_confirmation: PASSWORD } })).status).toBe(201)
    const login = await send('login', 'POST', '/api/auth/login', { json: { email: 'ada@example.com', password: PASSWORD } })
    expect(login.status).toBe(200)
    const token = login.body.data.token
    expect((await send('create', 'POST', '/api/v1/posts', { token, json: { title: 'Hello', body: 'x' } })).status).toBe(201)
    expect((await send('cut', 'POST', '/api/v1/posts', { token, json: { title: 'Long', body: 'y'.repeat(5000) } })).status).toBe(201)
    expect((await send('tooLarge', 'POST', '/api/v1/posts', { token, body: JSON.stringify({ title: 'Huge', body: 'z'.repeat(1_100_000) }) })).status).toBe(413)
    expect((await send('boom', 'GET', '/boom')).status).toBe(500)
  } finally {
    await server.close()
    await recording.close()
  }
  expect(ids.garbage).toMatch(/^svc_[0-9a-f]{32}$/)
}, 120_000)

afterAll(() => copy?.remove())

describe('bytes the HTTP parser refused (traced as - / 400: no request line could be read)', () => {
  it('test:regression skips them with the reason instead of replaying a request that was never sent', async () => {
    const run = await svc(['test:regression', '--status', '400', '--json'])
    expect(run.code, run.stderr).toBe(0)
    const report = JSON.parse(run.stdout)
    const result = report.results.find((entry: { trace_id: string }) => entry.trace_id === ids.garbage)
    expect(result).toMatchObject({ status: 'skipped', method: '-', path: '/' })
    expect(result.reason).toContain("HTTP parser refused it before the app saw it")
    expect(report.changed).toBe(0)
  })

  it('replay (and its --format) refuses them with a code and a hint, sending nothing', async () => {
    for (const args of [['replay', ids.garbage!], ['replay', ids.garbage!, '--format', 'curl'], ['fix', ids.garbage!]]) {
      const run = await svc(args)
      expect(run.code, args.join(' ')).toBe(1)
      expect(run.stdout).toBe('')
      expect(run.stderr).toContain('E_TRACE_NOT_HTTP')
      expect(run.stderr).toContain('not the bytes that were sent')
      expect(run.stderr).toMatch(/fix: .*svc log:trace/)
    }
  })
})

describe('a 500 recorded with APP_DEBUG on', () => {
  it('is the same in test:regression, and --test writes a test without warnings whose case passes', async () => {
    const run = await svc(['test:regression', '--path', '/boom', '--json'])
    expect(run.code, run.stdout).toBe(0)
    expect(JSON.parse(run.stdout)).toMatchObject({ total: 1, same: 1, changed: 0 })
    const written = await svc(['replay', ids.boom!, '--test', '--json'])
    expect(written.code, written.stderr).toBe(0)
    const replay = JSON.parse(written.stdout)
    expect(replay.diff.changed).toBe(false)
    expect(replay.test_warnings).toEqual([])
    // What the written test does (its svc/regression is the built package; here, the sources).
    const source = copy.read(replay.test_file)
    const recorded = JSON.parse(/const recorded: RecordedCase = (\{[\s\S]*?\n\})\n/.exec(source)![1]!) as RecordedCase
    expect(recorded.response.body).toMatchObject({ exception: { class: 'TypeError', stack: expect.any(Array) } })
    expect(await replayRecorded(copy.dir, recorded)).toMatchObject({ changed: false })
  })
})

describe('a login, whose password the trace does not keep', () => {
  it('replay and fix refuse to send "[REDACTED]" as the password, naming the --set to use; the account is never locked', async () => {
    for (let i = 0; i < 6; i++) {
      const run = await svc(['replay', ids.login!])
      expect(run.code).toBe(1)
      expect(run.stdout).toBe('')
      expect(run.stderr).toContain('E_REPLAY_REDACTED')
      expect(run.stderr).toContain('body.password')
      expect(run.stderr).toContain('--set password=<value>')
      expect(run.stderr).toContain('--send-redacted')
    }
    const fix = await svc(['fix', ids.login!])
    expect(fix.code).toBe(1)
    expect(fix.stderr).toContain('E_REPLAY_REDACTED')
    // Nothing was sent: the right password still signs in (five failed attempts would have locked the address: 423).
    const given = await svc(['replay', ids.login!, '--set', `password=${PASSWORD}`, '--json'])
    expect(given.code, given.stderr).toBe(0)
    expect(JSON.parse(given.stdout)).toMatchObject({ redacted: [], response: { status: 200 } })
  })

  it('sends the placeholder only when asked (--send-redacted), and --format still prints the command', async () => {
    const asked = await svc(['replay', ids.login!, '--send-redacted', '--json'])
    expect(asked.code, asked.stderr).toBe(0)
    expect(JSON.parse(asked.stdout)).toMatchObject({ redacted: ['body.password'], response: { status: 401 } })
    const curl = await svc(['replay', ids.login!, '--format', 'curl'])
    expect(curl.code).toBe(0)
    expect(curl.stdout).toContain("curl -X POST 'http://127.0.0.1:")
    expect(curl.stderr).toContain('Not replayed as recorded (redacted in the trace): body.password')
  })

  it('a registration names every field to give', async () => {
    const run = await svc(['replay', ids.register!])
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('--set password=<value> --set password_confirmation=<value>')
  })
})

describe('bodies the trace did not keep whole', () => {
  it('a 413 says the app refused the body (BODY_LIMIT), and does not suggest TRACE_BODY_LIMIT', async () => {
    const run = await svc(['replay', ids.tooLarge!])
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('E_TRACE_BODY_REFUSED')
    expect(run.stderr).toContain('the app refused its body for its size')
    expect(run.stderr).toContain('raise BODY_LIMIT')
    expect(run.stderr).not.toMatch(/raise TRACE_BODY_LIMIT|cut at the trace body limit/)
  })

  it('a body cut at TRACE_BODY_LIMIT says so, and suggests raising it', async () => {
    const run = await svc(['replay', ids.cut!])
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('E_TRACE_TRUNCATED')
    expect(run.stderr).toContain('cut at the trace body limit')
    expect(run.stderr).toContain('raise TRACE_BODY_LIMIT')
  })
})

describe('fix of a trace that did not fail', () => {
  it('words the outcome for a success, and prints its notes on stderr as replay does', async () => {
    const now401 = await svc(['fix', ids.create!, '--anonymous'])
    expect(now401.code).toBe(1)
    expect(now401.stdout).toContain('Fails now: POST /api/v1/posts answered 201 when recorded, 401 now.')
    expect(now401.stdout).not.toContain('Still failing')
    expect(now401.stdout).not.toContain('header authorization')
    expect(now401.stderr).toContain('Not replayed as recorded (redacted in the trace): header authorization')
    const still = await svc(['fix', ids.create!, '--as', 'ada@example.com'])
    expect(still.code).toBe(0)
    expect(still.stdout).toContain('Still succeeds: POST /api/v1/posts answered 201 when recorded, 201 now (the trace was no failure).')
    expect(still.stdout).not.toContain('Fixed')
    // Without --as, as the user who made it (the trace does not keep the token), said on stderr.
    const asRecorded = await svc(['fix', ids.create!])
    expect(asRecorded.code).toBe(0)
    expect(asRecorded.stdout).toContain('Still succeeds: POST /api/v1/posts answered 201 when recorded, 201 now')
    expect(asRecorded.stderr).toMatch(/Signed in as \S+@example\.com, who made the request/)
    expect(asRecorded.stderr).not.toContain('Not replayed as recorded')
  })
})

describe('--set', () => {
  it('on a GET or HEAD, which has no body to change, is E_BAD_OPTION, never a GET sent with a body', async () => {
    for (const args of [['replay', ids.boom!, '--set', 'title=x'], ['replay', ids.boom!, '--set', 'title=x', '--url', 'http://127.0.0.1:9'], ['fix', ids.boom!, '--set', 'title=x']]) {
      const run = await svc(args)
      expect(run.code, args.join(' ')).toBe(1)
      expect(run.stdout).toBe('')
      expect(run.stderr).toContain('error [E_BAD_OPTION]: --set changes a field of the JSON body, and a GET request has none')
      expect(run.stderr).toContain('--edit')
    }
  })
  it('a field the recorded body does not have is added, and said so on stderr with the body\'s fields (a typo was silent)', async () => {
    const typo = await svc(['replay', ids.create!, '--set', 'titel=Changed', '--set', 'body=kept', '--json'])
    expect(typo.code, typo.stderr).toBe(0)
    expect(typo.stderr).toContain('--set titel: the recorded body has no such field, so it is added (its fields: title, body).')
    expect(JSON.parse(JSON.parse(typo.stdout).request.body)).toMatchObject({ title: 'Hello', titel: 'Changed', body: 'kept' })
    const known = await svc(['fix', ids.create!, '--set', 'title=Changed again'])
    expect(known.stderr).not.toContain('no such field')
  })
  it('api:why --fix says so too, with the same words (it was silent on a typo)', async () => {
    const typo = await svc(['api:why', 'POST', '/api/v1/posts', '--id', ids.create!, '--fix', '--set', 'titel=Changed', '--json'])
    expect(typo.code, typo.stderr).toBe(0)
    expect(typo.stderr).toContain('--set titel: the recorded body has no such field, so it is added (its fields: title, body).')
    expect(JSON.parse(typo.stdout).replay.request.body).toContain('"titel":"Changed"')
    const known = await svc(['api:why', 'POST', '/api/v1/posts', '--id', ids.create!, '--fix', '--set', 'title=Changed'])
    expect(known.stderr).not.toContain('no such field')
  })
})

describe('--url', () => {
  it('takes only http(s) URLs: another scheme is E_BAD_OPTION, not a host named after it', async () => {
    const run = await svc(['replay', ids.boom!, '--url', 'ftp://x'])
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('E_BAD_OPTION')
    expect(run.stderr).toContain('--url takes http(s)://host[:port], got "ftp://x"')
    for (const url of ['ftp://x', 'FTP://example.com:21', 'file:///etc/passwd', 'ws://localhost:8080', 'mailto:a@b', '::::']) {
      expect(() => targetBase({ url }), url).toThrow(/--url takes http\(s\)/)
    }
    expect(targetBase({ url: 'localhost:9999' })).toBe('http://localhost:9999')
    expect(targetBase({ url: 'HTTP://Example.com:8080/' })).toBe('http://example.com:8080')
    expect(targetBase({ url: 'http://127.0.0.1:8080', https: true })).toBe('https://127.0.0.1:8080')
    expect(targetBase({ url: '[::1]:8080' })).toBe('http://[::1]:8080')
  })
})

describe('why after a replay', () => {
  it("explains the request that failed, not svc's replay of it (the latest failure), and says the replay failed too", async () => {
    const replay = await svc(['replay', ids.boom!, '--json'])
    expect(replay.code, replay.stderr).toBe(0)
    const replayId = JSON.parse(replay.stdout).response.trace_id as string
    expect(replayId).not.toBe(ids.boom)
    const why = await svc(['why', '--json'])
    expect(why.code, why.stderr).toBe(0)
    expect(JSON.parse(why.stdout)).toMatchObject({ trace: { trace_id: ids.boom, replay_of: null }, failed_replay: { trace_id: replayId, status_code: 500 } })
    const view = await svc(['why'])
    expect(view.stdout).toContain(`replayed since: ${replayId}`)
    expect(view.stdout).toContain(`failed too, 500; svc fix ${ids.boom}`)
  })
  it('api:why without --id passes over the replay too: it explains the request made', async () => {
    const replay = await svc(['replay', ids.boom!, '--json'])
    expect(replay.code, replay.stderr).toBe(0)
    const why = await svc(['api:why', 'GET', '/boom', '--json'])
    expect(why.code, why.stderr).toBe(0)
    expect(JSON.parse(why.stdout).trace).toMatchObject({ trace_id: ids.boom, replay_of: null })
  })
})
