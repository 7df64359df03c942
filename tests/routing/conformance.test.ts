/**
 * Runs the conformance table (conformance.cases.ts) three ways: every case
 * through `app.fetch`, every case through `app.explain` (which must say what
 * `fetch` did: the route, 405 and its Allow list, OPTIONS, which fallback, the
 * 400), and the core cases through svc's Node server on a free port, so the
 * adapter cannot change what the router decided.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { CONN_INFO, parseAlias, RouteDefinitionError, TRACE_HEADER, type App } from 'svc'
import { startServer, type RunningServer } from '../helpers/server.ts'
import {
  aliasParseCases,
  answer,
  buildApp,
  cases,
  definitionErrorCases,
  type CaseRequest,
  type ConformanceCase,
  type Fixture,
} from './conformance.cases.ts'

type Send = (fixture: Fixture, request: CaseRequest) => Response | Promise<Response>

const apps = new Map<Fixture, App>()
const appFor = (fixture: Fixture): App => {
  let app = apps.get(fixture)
  if (app === undefined) apps.set(fixture, (app = buildApp(fixture)))
  return app
}

const viaFetch: Send = (fixture, request) =>
  appFor(fixture).fetch(
    new Request(`http://localhost${request.path}`, { method: request.method, headers: request.headers, body: request.body }),
    { [CONN_INFO]: { remoteAddress: '127.0.0.1' } },
  )

const servers = new Map<Fixture, Promise<RunningServer>>()
const viaServer: Send = async (fixture, request) => {
  let server = servers.get(fixture)
  if (server === undefined) servers.set(fixture, (server = startServer(appFor(fixture))))
  return fetch(`${(await server).url}${request.path}`, { method: request.method, headers: request.headers, body: request.body })
}

afterAll(async () => {
  await Promise.all([...servers.values()].map(async (server) => (await server).close()))
})

async function check(send: Send, { fixture, request, expect: expected }: ConformanceCase): Promise<void> {
  const response = await send(fixture, request)
  const text = await response.text()
  const body = text === '' ? null : JSON.parse(text)
  const context = `${request.method} ${request.path} -> ${response.status} ${text}`

  expect(response.status, context).toBe(expected.status)
  expect(response.headers.get(TRACE_HEADER), context).toMatch(/^svc_[0-9a-f]{32}$/)
  if (expected.emptyBody) expect(text, context).toBe('')
  if (expected.handler !== undefined) expect(body?.data?.handler, context).toBe(expected.handler)
  if (expected.params !== undefined) {
    expect(body?.data?.params, context).toEqual(expected.params)
    expect(body?.data?.paramKeys, context).toEqual(Object.keys(expected.params))
  }
  if (expected.trail !== undefined) expect(body?.data?.trail, context).toEqual(expected.trail)
  if (expected.error !== undefined) {
    expect(body, context).toMatchObject({ success: false, code: expected.status })
    expect(body.error, context).toMatch(expected.error)
  }
  if (expected.status < 300 && expected.handler !== undefined) expect(body?.success, context).toBe(true)
  for (const [name, value] of Object.entries(expected.headers ?? {})) {
    expect(response.headers.get(name), `${context} [header ${name}]`).toBe(value)
  }
}

const label = (c: ConformanceCase) => `${c.rule}: ${c.name} (${c.request.method} ${c.request.path})`

describe('route conformance through app.fetch', () => {
  it.each(cases.map((c) => [label(c), c] as const))('%s', async (_, c) => check(viaFetch, c))
})

describe('route conformance through app.explain: it agrees with fetch', () => {
  it.each(cases.map((c) => [label(c), c] as const))('%s', async (_, { fixture, request }) => {
    const response = await viaFetch(fixture, request)
    const text = await response.text()
    const data = text === '' ? undefined : JSON.parse(text)?.data
    const explained = await appFor(fixture).explain(request.method, request.path)
    const context = `${request.method} ${request.path} -> ${response.status} ${text} / explain: ${JSON.stringify(explained)}`

    switch (explained.outcome) {
      case 'bad_request':
        expect(response.status, context).toBe(400)
        expect(explained.error, context).toMatch(/percent-encoding/)
        break
      case 'method_not_allowed':
        expect(response.status, context).toBe(405)
        expect(explained.allowed.join(', '), context).toBe(response.headers.get('allow'))
        break
      case 'options':
        expect(request.method).toBe('OPTIONS')
        expect(response.status, context).toBe(204)
        // A CORS preflight is answered by the CORS middleware, without Allow.
        if (response.headers.has('allow')) expect(explained.allowed.join(', '), context).toBe(response.headers.get('allow'))
        break
      case 'fallback':
        expect(data?.handler, context).toBe(`${explained.fallback}.fallback`)
        break
      case 'not_found':
        expect(response.status, context).toBe(404)
        expect(JSON.parse(text).error, context).toBe('Not Found')
        break
      case 'matched':
        expect([400, 405], context).not.toContain(response.status)
        // The fixtures' handlers answer their own name and parameters (HEAD has no body, middleware may answer first).
        if (data?.handler !== undefined) {
          expect(explained.matched!.handler, context).toBe(data.handler)
          expect(explained.matched!.params, context).toEqual(data.params)
        }
        break
    }
  })

  it('says why the earlier routes missed: a failed constraint, another method, another prefix', async () => {
    const blogApp = appFor(cases.find((c) => c.fixture.name === 'blog')!.fixture)
    const bySlug = await blogApp.explain('GET', '/api/posts/hello-world')
    expect(bySlug.matched).toMatchObject({ path: '/api/posts/{slug}', handler: 'posts.bySlug', params: { slug: 'hello-world' } })
    expect(bySlug.candidates).toContainEqual({ method: 'GET', path: '/api/posts/{id}', reason: 'constraint', detail: '{id}: "hello-world" does not match /\\d+/' })

    const notAllowed = await blogApp.explain('post', '/api/archive/2024')
    expect(notAllowed).toMatchObject({ outcome: 'method_not_allowed', allowed: ['GET', 'HEAD', 'OPTIONS'], matched: null })
    expect(notAllowed.candidates).toContainEqual({ method: 'GET', path: '/api/archive/{year?}', reason: 'method', detail: 'answers GET, not POST' })

    const versions = buildApp({ name: 'versions', api: (r) => r.version(1, (r) => r.get('/items/{id}', answer('v1'))) })
    const v2 = await versions.explain('GET', '/api/v2/items/3')
    expect(v2).toMatchObject({ outcome: 'not_found', fallback: null })
    expect(v2.candidates).toEqual([
      { method: 'GET', path: '/api/v1/items/{id}', reason: 'prefix', detail: 'prefix /api/v1/items does not match: segment 2 is "v2", not "v1"' },
    ])

    // A path as typed in a terminal is read as a client would send it.
    expect((await blogApp.explain('GET', '/café')).matched?.handler).toBe('cafe')
    expect((await blogApp.explain('GET', '/api/posts?page=2')).matched?.handler).toBe('posts.index')
  })
})

describe('route conformance through the Node server (core cases)', () => {
  const core = cases.filter((c) => c.core)
  it('covers every rule with at least one case', () => {
    const rules = new Set(cases.map((c) => c.rule))
    const coreRules = new Set(core.map((c) => c.rule))
    const missing = [...rules].filter((rule) => !coreRules.has(rule) && !['aliases'].includes(rule))
    expect(missing).toEqual([])
  })
  it.each(core.map((c) => [label(c), c] as const))('%s', async (_, c) => check(viaServer, c))
})

describe('route definition errors are raised at registration', () => {
  it.each(definitionErrorCases.map((c) => [`${c.rule}: ${c.name}`, c] as const))('%s', (_, c) => {
    let thrown: unknown
    try {
      buildApp(c.fixture)
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(RouteDefinitionError)
    expect((thrown as Error).message).toMatch(c.error)
  })

  it('a known alias is resolved once, at registration, not per request', async () => {
    let built = 0
    const app = buildApp({
      name: 'counted',
      aliases: {
        counted: () => {
          built++
          return (_c, next) => next()
        },
      },
      api: (r) => r.get('/x', () => 'ok').middleware('counted:1'),
    })
    expect(built).toBe(1)
    await app.fetch(new Request('http://localhost/api/x'))
    await app.fetch(new Request('http://localhost/api/x'))
    expect(built).toBe(1)
  })
})

describe('middleware alias syntax', () => {
  it.each(aliasParseCases.map((c) => [c.alias, c] as const))('parses %j', (_, c) => {
    expect(parseAlias(c.alias)).toEqual({ name: c.name, args: c.args })
  })
})
