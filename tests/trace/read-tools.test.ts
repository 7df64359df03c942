/**
 * The commands that only read traces, as a user test found them: they never
 * create a trace store (a mistyped TRACE_DATABASE_URL is an error, a project
 * that has served nothing yet has no traces yet); `--since` reads a time
 * without a zone as UTC, as they print it; db:why says when it stopped at
 * --limit; a trace id with filters, or with another request, is refused;
 * api:why names the layer that answered. Traces are recorded in process, by
 * the app built as the CLI builds it (real middleware and handlers).
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DbWhyJson, StatsJson, TopJson, TraceJson, TraceListJson, TraceUsersJson, WhyJson } from '../../cli/contract/traces.ts'
import { loadApp } from '../../cli/project/load-app.ts'
import { findProject } from '../../cli/project/project.ts'
import { copyExampleApp, svcEnv, type AppCopy } from '../helpers/cli.ts'
import { runSvc, startSvc, svcJson } from '../helpers/run-svc.ts'

const SECRET = 'read-tools-jwt-secret-0123456789abcdef'
const PASSWORD = 'correct-horse-battery-staple-42'

let app: AppCopy
const ids: Record<string, string> = {}

const svc = (args: string[], env: Record<string, string> = {}) => runSvc(args, { cwd: app.dir, env })
const json = <T>(args: string[], env: Record<string, string> = {}) => svcJson<T>(args, { cwd: app.dir, env })

beforeAll(async () => {
  app = copyExampleApp('blog')
  app.write('.env', `APP_ENV=development\nJWT_SECRET=${SECRET}\nTRACE_PREFIX=svc\n`)
  const migrated = await svc(['migrate'])
  expect(migrated.exitCode, migrated.stderr).toBe(0)
  const seeded = await svc(['db:seed'], { ADMIN_PASSWORD: PASSWORD, USER_PASSWORD: PASSWORD })
  expect(seeded.exitCode, seeded.stderr).toBe(0)
}, 60_000)

afterAll(() => app?.remove())

/** Sends requests to the app built as `svc` builds it, traced into the project's store; `debug` false records no stacks (APP_DEBUG=false). */
async function record(debug: boolean, script: (send: (name: string, method: string, path: string, init?: { json?: unknown; token?: string }) => Promise<{ status: number; body: any }>) => Promise<void>) {
  const loaded = await loadApp(findProject(app.dir, svcEnv()), { overrides: { APP_DEBUG: String(debug) } })
  try {
    await script(async (name, method, path, init = {}) => {
      const headers: Record<string, string> = {}
      if (init.json !== undefined) headers['content-type'] = 'application/json'
      if (init.token !== undefined) headers.authorization = `Bearer ${init.token}`
      const response = await loaded.app.fetch(new Request(`http://127.0.0.1:8080${path}`, { method, headers, body: init.json === undefined ? undefined : JSON.stringify(init.json) }))
      ids[name] = response.headers.get('x-service-trace-id')!
      const text = await response.text()
      return { status: response.status, body: text === '' ? null : JSON.parse(text) }
    })
  } finally {
    await loaded.close()
  }
}

describe('before any request was traced', () => {
  const store = () => app.path('storage', 'traces.sqlite')
  const readers: string[][] = [
    ['trace:list'],
    ['log:trace'],
    ['log:trace', 'svc_0123456789'],
    ['log:export'],
    ['log:tail', '--no-follow'],
    ['log:slow'],
    ['log:stats'],
    ['log:top'],
    ['trace:users'],
    ['db:why', 'posts', '1'],
    ['api:why', 'GET', '/api/v1/posts'],
    ['debug:last'],
    // They read the store too (cleanup deletes from it): both used to create it, or a mistyped TRACE_DATABASE_URL's folder.
    ['test:regression'],
    ['log:cleanup'],
  ]

  it('a TRACE_DATABASE_URL file that does not exist is E_TRACE_STORE naming it and the variable; nothing is created', async () => {
    const missing = join(app.dir, 'no-such-folder', 'deeper', 'traces.sqlite')
    for (const argv of readers) {
      const result = await svc(argv, { TRACE_DATABASE_URL: 'file:no-such-folder/deeper/traces.sqlite' })
      expect(result.exitCode, argv.join(' ')).toBe(1)
      expect(result.stderr, argv.join(' ')).toContain(`error [E_TRACE_STORE]: The trace store ${missing} does not exist, nor its folder`)
      expect(result.stderr).toContain('TRACE_DATABASE_URL=file:no-such-folder/deeper/traces.sqlite')
      expect(existsSync(join(app.dir, 'no-such-folder')), `svc ${argv.join(' ')} created the folder`).toBe(false)
    }
    // The folder exists, the file does not: the same error, without the folder.
    const inStorage = await svc(['trace:list', '--json'], { TRACE_DATABASE_URL: 'file:storage/typo.sqlite' })
    expect(inStorage.stderr).toContain(`The trace store ${app.path('storage', 'typo.sqlite')} does not exist (TRACE_DATABASE_URL=file:storage/typo.sqlite)`)
    expect(JSON.parse(inStorage.stdout).error).toMatchObject({ code: 'E_TRACE_STORE', exit_code: 1 })
    expect(existsSync(app.path('storage', 'typo.sqlite'))).toBe(false)
  })

  it('the default store not there yet: no traces, exit 0, valid --json, a note on stderr, and still no store', async () => {
    // debug:last is left out: no failed request is its own error (E_NO_FAILED_TRACE).
    for (const argv of readers.filter((words) => words[0] !== 'debug:last' && words[1] !== 'svc_0123456789')) {
      const result = await svc([...argv, '--json'])
      expect(result.exitCode, `${argv.join(' ')}: ${result.stderr}`).toBe(0)
      expect(result.stderr).toContain('No traces yet: storage/traces.sqlite does not exist')
      expect(existsSync(store()), `svc ${argv.join(' ')} created the store`).toBe(false)
    }
    expect((await json<TraceListJson>(['trace:list'])).traces).toEqual([])
    expect((await json<TraceListJson>(['log:trace', '--status', '5xx'])).traces).toEqual([])
    expect((await json<StatsJson>(['log:stats'])).total).toBe(0)
    expect((await json<TopJson>(['log:top'])).endpoints).toEqual([])
    expect((await json<TraceUsersJson>(['trace:users'])).users).toEqual([])
    expect((await json<DbWhyJson>(['db:why', 'posts', '1'])).statements).toEqual([])
    expect((await json<WhyJson>(['api:why', 'GET', '/api/v1/posts'])).trace).toBeNull()
    const human = await svc(['trace:list'])
    expect(human).toMatchObject({ exitCode: 0, stdout: 'No traces match.\n' })
    const one = await svc(['log:trace', 'svc_0123456789'])
    expect(one.stderr).toContain('error [E_TRACE_NOT_FOUND]')
    expect((await svc(['debug:last'])).stderr).toContain('error [E_NO_FAILED_TRACE]')
    expect(existsSync(store())).toBe(false)
  })

  it('log:tail waits for the store the first traced request creates, then follows it', async () => {
    const tail = startSvc(['log:tail', '--json'], { cwd: app.dir })
    try {
      await waitUntil(() => tail.output.stderr.includes('No traces yet'))
      expect(existsSync(store())).toBe(false)
      await record(true, async (send) => {
        expect((await send('tailed', 'GET', '/health/live')).status).toBe(200)
      })
      const [line] = await tail.waitFor(/^\{.*"trace_id".*\}$/, 10_000)
      expect(JSON.parse(line!).trace_id).toBe(ids.tailed)
    } finally {
      expect((await tail.stop()).exitCode).toBe(0)
    }
  })
})

async function waitUntil(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > end) throw new Error('timed out')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

describe('with traces', () => {
  beforeAll(async () => {
    await record(true, async (send) => {
      const registered = await send('register', 'POST', '/api/auth/register', { json: { name: 'Ada', email: 'ada@example.com', password: PASSWORD, password_confirmation: PASSWORD } })
      expect(registered.status).toBe(201)
      const token = registered.body.data.token as string
      expect((await send('refresh', 'POST', '/api/auth/refresh', { json: { refresh_token: 'not-a-refresh-token' } })).status).toBe(401)
      expect((await send('idempotency', 'POST', '/api/v2/posts', { token, json: { title: 'No key', body: 'x' } })).status).toBe(400)
      expect((await send('delete', 'DELETE', '/api/v1/posts/1', { token })).status).toBe(403)
      for (let i = 0; i < 3; i++) expect((await send(`show1:${i}`, 'GET', '/api/v1/posts/1')).status).toBe(200)
      for (let i = 0; i < 6; i++) expect((await send(`show2:${i}`, 'GET', '/api/v1/posts/2')).status).toBe(200)
      ids.token = token
    })
    // Without APP_DEBUG a trace keeps no stack: who answered is read from the timeline and the route alone.
    await record(false, async (send) => {
      expect((await send('refreshNoStack', 'POST', '/api/auth/refresh', { json: { refresh_token: 'not-a-refresh-token' } })).status).toBe(401)
      expect((await send('idempotencyNoStack', 'POST', '/api/v2/posts', { token: ids.token, json: { title: 'No key', body: 'x' } })).status).toBe(400)
      expect((await send('missingTokenNoStack', 'POST', '/api/v1/posts', { json: { title: 'x', body: 'y' } })).status).toBe(401)
    })
  }, 60_000)

  describe('--since', () => {
    it('reads a date and time without a zone as UTC, as the tools print times, whatever the machine\'s TZ', async () => {
      const line = (await svc(['log:trace', '--path', '/api/v1/posts/1', '--limit', '1'])).stdout.split('\n')[1]!
      const printed = /^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\s/.exec(line)![1]!
      const before = process.env.TZ
      process.env.TZ = 'America/Los_Angeles'
      try {
        expect(new Date('2026-11-27T12:00:00').getTime(), 'TZ took effect').not.toBe(Date.parse('2026-11-27T12:00:00Z'))
        const list = await json<TraceListJson>(['trace:list', '--since', printed, '--limit', '100'])
        expect(list.traces.map((trace) => trace.trace_id)).toContain(ids['show1:2'])
        expect(list.filters.since).toBe(printed)
        // A zone, when given, counts: an hour earlier keeps the trace, eight hours later (in the future) keeps nothing.
        const [date, time] = printed.split(' ') as [string, string]
        const since = async (value: string) => (await json<TraceListJson>(['trace:list', '--since', value, '--limit', '100'])).traces.map((trace) => trace.trace_id)
        expect(await since(`${date}T${time}Z`)).toContain(ids['show1:2'])
        expect(await since(`${date}T${time}+01:00`)).toContain(ids['show1:2'])
        expect(await since(`${date} ${time}-0800`)).toEqual([])
        expect(await since(date)).toContain(ids['show1:2'])
      } finally {
        if (before === undefined) delete process.env.TZ
        else process.env.TZ = before
      }
    })

    it('names the forms it takes when it is neither an age nor a date; --days 0 and -1 get the same message', async () => {
      for (const value of ['yesterday', '2026-02-30', '2026-11-27 25:00']) {
        const result = await svc(['trace:list', '--since', value])
        expect(result.exitCode).toBe(1)
        expect(result.stderr).toContain(`error [E_BAD_OPTION]: --since takes an age (45s, 30m, 1h, 2d, 1w) or a date and time (2026-11-27, 2026-11-27 21:47:20`)
        expect(result.stderr).toContain(`UTC unless it gives a zone), got "${value}"`)
      }
      for (const argv of [['trace:list'], ['log:stats'], ['log:top']]) {
        for (const days of ['0', '-1']) {
          const result = await svc([...argv, '--days', days])
          expect(result.stderr, `${argv[0]} --days ${days}`).toContain(`error [E_BAD_OPTION]: --days takes a number greater than 0, got "${days}"`)
        }
      }
    })
  })

  describe('db:why', () => {
    it('a table the database does not have, and no trace touched, is E_NO_TABLE naming it and the close names', async () => {
      const typo = await svc(['db:why', 'postz', '1'])
      expect(typo).toMatchObject({ exitCode: 1, stdout: '' })
      expect(typo.stderr).toContain('error [E_NO_TABLE]: No table postz in the database')
      expect(typo.stderr).toContain('did you mean posts?')
      const unknown = await svc(['db:why', 'nosuch', '1', '--json'])
      expect(unknown.exitCode).toBe(1)
      expect(JSON.parse(unknown.stdout).error).toMatchObject({ code: 'E_NO_TABLE', message: 'No table nosuch in the database', exit_code: 1 })
      expect(JSON.parse(unknown.stdout).error.fix).toContain('posts')
    })

    it('a --key column the table does not have is E_NO_COLUMN with the close names and the columns; a row nothing touched is still exit 0', async () => {
      const typo = await svc(['db:why', 'posts', '1', '--key', 'slugg'])
      expect(typo).toMatchObject({ exitCode: 1, stdout: '' })
      expect(typo.stderr).toContain('error [E_NO_COLUMN]: No column slugg in the table posts')
      expect(typo.stderr).toContain('did you mean slug? columns of posts: id, title, slug')
      const unknown = await svc(['db:why', 'posts', '1', '--key', 'nosuch', '--json'])
      expect(JSON.parse(unknown.stdout).error).toMatchObject({ code: 'E_NO_COLUMN', exit_code: 1 })
      const untouched = await json<DbWhyJson>(['db:why', 'posts', '424242', '--key', 'ID'])
      expect(untouched.statements).toEqual([])
    })

    it('says when it stopped at --limit, and how to search further', async () => {
      // The 6 newest traces that ran a statement on posts read post 2: the newest 5 hold nothing about post 1.
      const stopped = await json<DbWhyJson>(['db:why', 'posts', '1', '--limit', '5'])
      expect(stopped).toMatchObject({ statements: [], traces_searched: 5, limit_reached: true })
      const human = await svc(['db:why', 'posts', '1', '--limit', '5'])
      expect(human.stdout).toContain('No recorded statement touched posts id=1: searched only the newest 5 traces that ran a statement on posts')
      expect(human.stdout).toContain('--limit 50')
      expect(human.stdout).not.toContain('within the kept traces')

      const all = await json<DbWhyJson>(['db:why', 'posts', '1', '--limit', '1000'])
      expect(all.limit_reached).toBe(false)
      expect(all.statements.filter((s) => s.kind === 'select').map((s) => s.trace_id)).toEqual([ids['show1:2'], ids['show1:1'], ids['show1:0']])
      // Found something, but the search stopped before reading everything: still said.
      const some = await svc(['db:why', 'posts', '1', '--limit', '7'])
      expect(some.stdout).toContain('posts id=1: 1 statement(s), newest first')
      expect(some.stdout).toContain('The search stopped: it searched only the newest 7 traces that ran a statement on posts')
    })
  })

  describe('a trace id and what else was given', () => {
    it('log:trace and log:export refuse filters beside an id, naming them', async () => {
      const shown = await svc(['log:trace', ids.delete!, '--status', '5xx', '--method', 'DELETE'])
      expect(shown.exitCode).toBe(1)
      expect(shown.stdout).toBe('')
      expect(shown.stderr).toContain('error [E_BAD_OPTION]: --status, --method select the traces of a search, and a trace id names one trace')
      const exported = await svc(['log:export', ids.delete!, '--status', '5xx'])
      expect(exported.exitCode).toBe(1)
      expect(exported.stdout).toBe('')
      expect(exported.stderr).toContain('error [E_BAD_OPTION]: --status selects the traces of a search')
      expect((await svc(['log:trace', ids.delete!, '--limit', '3'])).stderr).toContain('--limit selects')
      // Alone, the id still shows and exports the trace; without one, the filters still search.
      expect((await svc(['log:trace', ids.delete!])).exitCode).toBe(0)
      expect((await svc(['log:export', ids.delete!])).exitCode).toBe(0)
      expect((await json<TraceListJson>(['log:trace', '--method', 'DELETE'])).traces.map((trace) => trace.trace_id)).toEqual([ids.delete])
    })

    it('an id shortened under 6 characters says so (it said "No trace with id" when traces started with it)', async () => {
      const start = ids.delete!.slice(0, 5)
      for (const command of ['log:trace', 'replay']) {
        const short = await svc([command, start])
        expect(short.exitCode).toBe(1)
        expect(short.stderr).toContain(`error [E_TRACE_NOT_FOUND]: No trace with id "${start}", and a shortened id needs at least 6 characters`)
      }
      expect((await json<TraceJson>(['log:trace', ids.delete!.slice(0, 12)])).trace.trace_id).toBe(ids.delete)
    })

    it('an empty id ("$ID" unset) is refused, not read as a search that log:export exported whole', async () => {
      for (const command of ['log:trace', 'log:export']) {
        const empty = await svc([command, ''])
        expect(empty.exitCode, command).toBe(1)
        expect(empty.stdout).toBe('')
        expect(empty.stderr).toContain('error [E_BAD_ARGUMENTS]: The trace id is empty')
      }
    })

    it('api:why refuses an --id that is a trace of another request', async () => {
      const other = await svc(['api:why', 'GET', '/api/v2/posts', '--id', ids.delete!])
      expect(other.exitCode).toBe(1)
      expect(other.stdout).toBe('')
      expect(other.stderr).toContain(`error [E_BAD_OPTION]: --id ${ids.delete} is a trace of DELETE /api/v1/posts/1, not GET /api/v2/posts`)
      expect(other.stderr).toContain(`svc api:why DELETE /api/v1/posts/1 --id ${ids.delete}`)
      const same = await json<WhyJson>(['api:why', 'delete', '/api/v1/posts/1', '--id', ids.delete!])
      expect(same.trace!.trace_id).toBe(ids.delete)
    })
  })

  describe('api:why takes the path as users paste it', () => {
    it('without its first slash, or as a whole URL: the same route and the same trace as /api/v1/posts/2', async () => {
      // The router matched `api/v1/posts/2` but the trace search did not ("No trace of this request"); a URL matched no route.
      const plain = await json<WhyJson>(['api:why', 'GET', '/api/v1/posts/2'])
      expect(plain.trace?.trace_id).toMatch(/^svc_/)
      for (const given of ['api/v1/posts/2', 'http://127.0.0.1:8080/api/v1/posts/2', 'http://127.0.0.1:8080/api/v1/posts/2?page=1']) {
        const why = await json<WhyJson>(['api:why', 'GET', given])
        expect(why.request, given).toEqual({ method: 'GET', path: '/api/v1/posts/2' })
        expect(why.routing.outcome, given).toBe('matched')
        expect(why.trace?.trace_id, given).toBe(plain.trace!.trace_id)
      }
    })
  })

  describe('api:why names the layer that answered', () => {
    it('the refresh handler refusing a refresh token, not the middleware that wraps every route', async () => {
      for (const name of ['refresh', 'refreshNoStack']) {
        const why = await json<WhyJson>(['api:why', 'POST', '/api/auth/refresh', '--id', ids[name]!])
        expect(why.failure, name).toMatchObject({ kind: 'invalid_token', status: 401, middleware: null })
        expect(why.failure!.explanation).toContain("The route's handler refresh answered 401 Invalid token itself")
        expect(why.failure!.explanation).not.toMatch(/log in again/i)
        const human = await svc(['api:why', 'POST', '/api/auth/refresh', '--id', ids[name]!])
        expect(human.stdout).not.toContain('refused by middleware')
      }
    })

    it('the idempotency middleware refusing a create without Idempotency-Key, with a stack or without one (it did not call next())', async () => {
      const why = await json<WhyJson>(['api:why', 'POST', '/api/v2/posts', '--id', ids.idempotency!])
      expect(why.failure).toMatchObject({ kind: 'bad_request', status: 400, middleware: 'idempotency' })
      expect((await svc(['api:why', 'POST', '/api/v2/posts', '--id', ids.idempotency!])).stdout).toContain('(400 This request needs an Idempotency-Key header')
      expect((await svc(['api:why', 'POST', '/api/v2/posts', '--id', ids.idempotency!])).stdout).toContain('refused by middleware idempotency')
      // Every middleware the route declares ran; the timeline says which one did not pass the request on.
      const noStack = await json<WhyJson>(['api:why', 'POST', '/api/v2/posts', '--id', ids.idempotencyNoStack!])
      expect(noStack.failure).toMatchObject({ kind: 'bad_request', middleware: 'idempotency' })
      expect(noStack.failure!.explanation).not.toContain('The trace does not tell')
      // Fewer middleware ran than the route declares: the innermost one stopped the request, stack or not.
      const missing = await json<WhyJson>(['api:why', 'POST', '/api/v1/posts', '--id', ids.missingTokenNoStack!])
      expect(missing.failure).toMatchObject({ kind: 'missing_token', middleware: 'auth' })
      const role = await json<WhyJson>(['api:why', 'DELETE', '/api/v1/posts/1', '--id', ids.delete!])
      expect(role.failure).toMatchObject({ kind: 'role', middleware: 'auth' })
    })
  })
})

describe('--route: the traces one route answered', () => {
  // Recorded after the tests above, which count what they recorded: three routes under the glob /api/v1/posts/*.
  beforeAll(async () => {
    await record(false, async (send) => {
      for (let i = 0; i < 2; i++) expect((await send(`routeShow:${i}`, 'GET', `/api/v1/posts/${i + 1}`)).status).toBe(200)
      expect((await send('routeHead', 'HEAD', '/api/v1/posts/1')).status).toBe(200)
      expect((await send('routeArchive', 'GET', '/api/v1/posts/archive')).status).toBe(200)
      expect((await send('routeSlug', 'GET', '/api/v1/posts/no-such-post')).status).toBe(404)
    })
  }, 60_000)

  it('keeps only that route, so the count and --limit are its own; the editor asks GET,HEAD for a GET route', async () => {
    const glob = await json<TraceListJson>(['trace:list', '--path', '/api/v1/posts/*', '--limit', '1000'])
    const routes = new Set(glob.traces.map((trace) => trace.route))
    expect(routes).toEqual(new Set(['/api/v1/posts/{id}', '/api/v1/posts/archive/{year?}', '/api/v1/posts/{slug}']))

    const own = await json<TraceListJson>(['trace:list', '--path', '/api/v1/posts/*', '--route', '/api/v1/posts/{id}', '--method', 'GET,HEAD', '--limit', '1000'])
    const expected = glob.traces.filter((trace) => trace.route === '/api/v1/posts/{id}' && (trace.method === 'GET' || trace.method === 'HEAD'))
    expect(own.traces.map((trace) => trace.trace_id)).toEqual(expected.map((trace) => trace.trace_id))
    expect(own.traces.some((trace) => trace.method === 'HEAD')).toBe(true)
    expect(own.filters).toMatchObject({ route: '/api/v1/posts/{id}', method: 'GET,HEAD' })
    // A page of the route's traces is full of them: "Load more" pages through this route alone.
    const page = await json<TraceListJson>(['trace:list', '--route', '/api/v1/posts/{id}', '--limit', '3'])
    expect(page.traces).toHaveLength(3)
    expect(page.traces.every((trace) => trace.route === '/api/v1/posts/{id}')).toBe(true)
    expect((await json<TraceListJson>(['trace:list', '--route', '/api/v1/posts/{nope}'])).traces).toEqual([])
  })

  it('a parameter written :id, or a glob, is E_BAD_OPTION naming the pattern to give (it selected nothing, silently)', async () => {
    const colon = await svc(['trace:list', '--route', '/api/v1/posts/:id'])
    expect(colon.exitCode).toBe(1)
    expect(colon.stderr).toContain(`error [E_BAD_OPTION]: --route takes a route's pattern as route:list prints it, its parameters in braces, got "/api/v1/posts/:id"`)
    expect(colon.stderr).toContain(`--route '/api/v1/posts/{id}'`)
    expect((await svc(['trace:list', '--route', '/api/v1/posts/archive/:year?'])).stderr).toContain(`--route '/api/v1/posts/archive/{year?}'`)
    const glob = await svc(['log:trace', '--route', '/api/v1/posts/*'])
    expect(glob.exitCode).toBe(1)
    expect(glob.stderr).toContain(`--route matches one route's pattern exactly, and "/api/v1/posts/*" is a glob`)
    expect(glob.stderr).toContain(`--path '/api/v1/posts/*'`)
  })

  it('is refused beside a trace id, as every filter is', async () => {
    const refused = await svc(['log:trace', ids['routeArchive']!, '--route', '/api/v1/posts/{id}'])
    expect(refused.exitCode).toBe(1)
    expect(refused.stderr).toContain('--route selects the traces of a search')
  })
})
