/**
 * The route-matching conformance table: one case per routing rule of the spec
 * ("Routing rules", "Versioning", "Middleware aliases") and per edge case.
 * Each case names its fixture (the routes), a request and what must come
 * back. conformance.test.ts runs every case through `app.fetch`, and the
 * cases marked `core` once more through the real Node server.
 *
 * Handlers answer `{ handler, params, paramKeys, trail }`, so a case can say
 * which route answered, with which parameters (`paramKeys` proves that an
 * optional parameter that was not given is absent, not `undefined` or ''),
 * and in which order the middleware ran before the handler. Middleware also
 * append their name to `X-After` on the way out, to check the onion's second half.
 */
import {
  createApp,
  defineRoutes,
  HttpError,
  resolveConfig,
  type App,
  type AppOptions,
  type Context,
  type CorsOptions,
  type EnvRecord,
  type Handler,
  type Middleware,
  type MiddlewareFactory,
  type MiddlewareSpec,
  type RouteRegistrar,
} from 'svc'

declare module 'svc' {
  interface ContextState {
    /** The names of the middleware that ran, outermost first. */
    trail?: string[]
  }
}

export interface Fixture {
  name: string
  api?: (r: RouteRegistrar) => void
  web?: (r: RouteRegistrar) => void
  middleware?: MiddlewareSpec[]
  aliases?: Record<string, MiddlewareFactory>
  cors?: CorsOptions | false
  env?: EnvRecord
}

export interface CaseRequest {
  method: string
  path: string
  headers?: Record<string, string>
  body?: string
}

export interface CaseExpectation {
  status: number
  /** `data.handler` of the answer: which route (or fallback) answered. */
  handler?: string
  /** Exactly these parameters (keys included: an absent optional parameter is no key at all). */
  params?: Record<string, string>
  /** Middleware that ran before the handler, outermost first. */
  trail?: string[]
  /** Header values; `null` means the header must be absent. */
  headers?: Record<string, string | null>
  /** `error` of an error envelope, as a pattern. */
  error?: RegExp
  /** True when the response must have no body at all (HEAD, 204). */
  emptyBody?: boolean
}

export interface ConformanceCase {
  /** The spec rule or edge case the case checks. */
  rule: string
  name: string
  fixture: Fixture
  request: CaseRequest
  expect: CaseExpectation
  /** Also run through the real Node server on port 0. */
  core?: boolean
}

/** A handler that reports which route answered, with what. */
export function answer(name: string): Handler {
  const handler = (c: Context) => ({
    handler: name,
    params: c.params,
    paramKeys: Object.keys(c.params),
    trail: c.state.trail ?? [],
  })
  Object.defineProperty(handler, 'name', { value: name })
  return handler
}

/** A middleware that notes its name in `c.state.trail` before the handler and in `X-After` after it. */
export function mark(name: string): Middleware {
  const middleware: Middleware = async (c, next) => {
    ;(c.state.trail ??= []).push(name)
    const response = await next()
    const after = response.headers.get('X-After')
    const marked = new Response(response.body, response)
    marked.headers.set('X-After', after === null ? name : `${after},${name}`)
    return marked
  }
  Object.defineProperty(middleware, 'name', { value: name })
  return middleware
}

/** A route middleware that answers 403 itself, without calling the handler. */
const deny: Middleware = async function deny() {
  throw new HttpError(403, 'Denied by middleware')
}

function fallbackAnswer(name: string): Handler {
  return (c) => c.json({ handler: name, path: c.path }, { status: 404, message: `No route for ${c.method} ${c.path}` })
}

export function buildApp(fixture: Fixture): App {
  const options: AppOptions = {
    config: resolveConfig({ APP_ENV: 'test', APP_DEBUG: 'false', ...fixture.env }),
    ...(fixture.api ? { api: defineRoutes(fixture.api) } : {}),
    ...(fixture.web ? { web: defineRoutes(fixture.web) } : {}),
    ...(fixture.middleware ? { middleware: fixture.middleware } : {}),
    ...(fixture.aliases ? { aliases: fixture.aliases } : {}),
    ...(fixture.cors !== undefined ? { cors: fixture.cors } : {}),
  }
  return createApp(options)
}

// ---------------------------------------------------------------- fixtures

/** The main fixture: a resource with constrained params, optional params, any, both fallbacks. */
export const blog: Fixture = {
  name: 'blog',
  api: (r) => {
    r.get('/posts', answer('posts.index'))
    r.post('/posts', answer('posts.store'))
    r.get('/posts/{id}', answer('posts.show')).where('id', /\d+/)
    r.get('/posts/{slug}', answer('posts.bySlug')).where('slug', /[a-z0-9-]+/)
    r.put('/posts/{id}', answer('posts.update')).where('id', /\d+/)
    r.patch('/posts/{id}', answer('posts.patch')).where('id', /\d+/)
    r.delete('/posts/{id}', answer('posts.destroy')).where('id', /\d+/)
    r.get('/archive/{year?}', answer('archive')).where('year', /\d{4}/)
    r.get('/calendar/{year}/{month?}', answer('calendar')).where({ year: /\d{4}/, month: /\d{2}/ })
    r.get('/users/{user}/posts/{post}', answer('users.post')).where({ user: /\d+/, post: /[a-z]+/ })
    r.get('/products/{sku}', answer('products.show')).where('sku', '[A-Z]{3}-\\d+')
    r.get('/codes/{code}', answer('codes.show')).where('code', /^\d+$/)
    r.get('/files/{name}', answer('files.show'))
    r.get('/Case', answer('case.upper'))
    r.post('/login', answer('login'))
    r.any('/echo', answer('echo'))
    r.get('/mixed', answer('mixed.get'))
    r.any('/mixed', answer('mixed.any'))
    r.get('/v.1/{x}', answer('dotted'))
    r.fallback(fallbackAnswer('api.fallback'))
  },
  web: (r) => {
    r.get('/', answer('home'))
    r.get('/café', answer('cafe'))
    r.fallback(fallbackAnswer('web.fallback'))
  },
}

/** Only an api fallback: it answers web paths too. */
const apiFallbackOnly: Fixture = {
  name: 'api fallback only',
  api: (r) => {
    r.get('/posts', answer('posts.index'))
    r.fallback(fallbackAnswer('api.fallback'))
  },
  web: (r) => r.get('/about', answer('about')),
}

/** No fallback at all: the default 404 envelope. */
const noFallback: Fixture = {
  name: 'no fallback',
  api: (r) => r.get('/posts', answer('posts.index')),
}

/** Global, group and route middleware, and aliases. */
export const layered: Fixture = {
  name: 'layered middleware',
  middleware: [mark('global1'), mark('global2')],
  aliases: {
    tag: (args) => mark(`tag(${args.join('|')})`),
    throttle: (args) => mark(`throttle(${args.join('|')})`),
  },
  api: (r) => {
    r.group({ prefix: 'outer', middleware: [mark('outer')] }, (r) => {
      r.group({ prefix: '/inner/', middleware: ['tag: x , y'] }, (r) => {
        r.get('/leaf', answer('leaf')).middleware(mark('route1'), mark('route2'))
        r.get('/denied', answer('never')).middleware(deny, mark('unreached'))
        r.get('/boom', () => {
          throw new Error('handler failed')
        })
      })
    })
    r.get('/throttled', answer('throttled')).throttle(60, 1)
    r.get('/items/{id}', answer('items.show'))
    r.version(2, (r) => r.get('/versioned', answer('versioned')), { middleware: [mark('v2')] })
  },
}

/** Versions side by side, written three ways that must give the same routes. */
const versionGroups: Fixture = {
  name: 'version()',
  api: (r) => {
    r.version(1, (r) => r.get('/items/{id}', answer('items.v1')).where('id', /\d+/))
    r.version(2, (r) => r.get('/items/{id}', answer('items.v2')).where('id', /\d+/))
  },
}
const apiPrefixGroups: Fixture = {
  name: "group('v1') in routes/api",
  api: (r) => {
    r.group('v1', (r) => r.get('/items/{id}', answer('items.v1')).where('id', /\d+/))
    r.group({ prefix: 'v2' }, (r) => r.get('/items/{id}', answer('items.v2')).where('id', /\d+/))
  },
}
const webPrefixGroups: Fixture = {
  name: "group('api/v1') in routes/web",
  web: (r) => {
    r.group('api', (r) => {
      r.group('v1', (r) => r.get('/items/{id}', answer('items.v1')).where('id', /\d+/))
    })
    r.group({ prefix: 'api/v2' }, (r) => r.get('/items/{id}', answer('items.v2')).where('id', /\d+/))
  },
}

/**
 * Routes whose leading static segments differ: the table is split into buckets
 * by method and the first two static segments, which must not change the
 * definition order or hide a route defined at a shallower prefix.
 */
const buckets: Fixture = {
  name: 'buckets',
  web: (r) => {
    r.get('/{section}/list', answer('generic.list'))
    r.get('/posts/list', answer('posts.list'))
    r.get('/posts/{id}', answer('posts.show')).where('id', /\d+/)
    r.get('/a/b/c/d', answer('deep'))
    r.get('/a/{x}/c', answer('a.x.c'))
    r.get('/{page}', answer('page'))
  },
}

/** CORS from CORS_ORIGINS, as an app configures it from .env. */
const withCors: Fixture = {
  name: 'cors',
  env: { CORS_ORIGINS: 'https://app.example, https://admin.example' },
  api: (r) => {
    r.get('/posts', answer('posts.index'))
    r.post('/posts', answer('posts.store'))
    r.get('/posts/{id}', answer('posts.show'))
  },
}

// ------------------------------------------------------------------- cases

const get = (path: string, headers?: Record<string, string>): CaseRequest => ({ method: 'GET', path, ...(headers ? { headers } : {}) })
const req = (method: string, path: string, headers?: Record<string, string>): CaseRequest => ({ method, path, ...(headers ? { headers } : {}) })

export const cases: ConformanceCase[] = [
  // Rule 1: methods.
  { rule: 'methods', name: 'GET', fixture: blog, request: get('/api/posts'), expect: { status: 200, handler: 'posts.index', params: {} }, core: true },
  { rule: 'methods', name: 'POST', fixture: blog, request: req('POST', '/api/posts'), expect: { status: 200, handler: 'posts.store' }, core: true },
  { rule: 'methods', name: 'PUT', fixture: blog, request: req('PUT', '/api/posts/7'), expect: { status: 200, handler: 'posts.update', params: { id: '7' } }, core: true },
  { rule: 'methods', name: 'PATCH', fixture: blog, request: req('PATCH', '/api/posts/7'), expect: { status: 200, handler: 'posts.patch', params: { id: '7' } } },
  { rule: 'methods', name: 'DELETE', fixture: blog, request: req('DELETE', '/api/posts/7'), expect: { status: 200, handler: 'posts.destroy', params: { id: '7' } }, core: true },
  { rule: 'methods', name: 'any: GET', fixture: blog, request: get('/api/echo'), expect: { status: 200, handler: 'echo' } },
  { rule: 'methods', name: 'any: POST', fixture: blog, request: req('POST', '/api/echo'), expect: { status: 200, handler: 'echo' }, core: true },
  { rule: 'methods', name: 'any: DELETE', fixture: blog, request: req('DELETE', '/api/echo'), expect: { status: 200, handler: 'echo' } },
  { rule: 'methods', name: 'any: an extension method (PROPFIND)', fixture: blog, request: req('PROPFIND', '/api/echo'), expect: { status: 200, handler: 'echo' } },
  { rule: 'methods', name: 'a GET route defined before any() wins for GET', fixture: blog, request: get('/api/mixed'), expect: { status: 200, handler: 'mixed.get' } },
  { rule: 'methods', name: 'any() answers the other methods', fixture: blog, request: req('PUT', '/api/mixed'), expect: { status: 200, handler: 'mixed.any' } },
  {
    rule: 'methods', name: 'HEAD on a GET route: 200, headers, no body', fixture: blog, request: req('HEAD', '/api/posts/7'),
    expect: { status: 200, emptyBody: true, headers: { 'content-type': 'application/json; charset=utf-8' } }, core: true,
  },
  { rule: 'methods', name: 'HEAD on an any() route', fixture: blog, request: req('HEAD', '/api/echo'), expect: { status: 200, emptyBody: true } },

  // Rule 2: parameters, optional parameters.
  { rule: 'params', name: '{param}', fixture: blog, request: get('/api/files/report'), expect: { status: 200, handler: 'files.show', params: { name: 'report' } }, core: true },
  { rule: 'params', name: 'two params, each constrained', fixture: blog, request: get('/api/users/12/posts/intro'), expect: { status: 200, handler: 'users.post', params: { user: '12', post: 'intro' } }, core: true },
  { rule: 'params', name: '{param?} absent: no key at all', fixture: blog, request: get('/api/archive'), expect: { status: 200, handler: 'archive', params: {} }, core: true },
  { rule: 'params', name: '{param?} absent with a trailing slash', fixture: blog, request: get('/api/archive/'), expect: { status: 200, handler: 'archive', params: {} } },
  { rule: 'params', name: '{param?} present', fixture: blog, request: get('/api/archive/2024'), expect: { status: 200, handler: 'archive', params: { year: '2024' } }, core: true },
  { rule: 'params', name: '{param?} present with a trailing slash', fixture: blog, request: get('/api/archive/2024/'), expect: { status: 200, handler: 'archive', params: { year: '2024' } } },
  { rule: 'params', name: 'required + optional, optional absent', fixture: blog, request: get('/api/calendar/2025'), expect: { status: 200, handler: 'calendar', params: { year: '2025' } } },
  { rule: 'params', name: 'required + optional, both given', fixture: blog, request: get('/api/calendar/2025/03'), expect: { status: 200, handler: 'calendar', params: { year: '2025', month: '03' } } },
  { rule: 'params', name: 'a param never spans segments', fixture: blog, request: get('/api/files/a/b'), expect: { status: 404, handler: 'api.fallback' } },
  { rule: 'params', name: 'an empty segment is no param value', fixture: blog, request: get('/api/users//posts/intro'), expect: { status: 404, handler: 'api.fallback' } },

  // Rule 2 edge: percent-encoding.
  { rule: 'encoding', name: 'params are decoded', fixture: blog, request: get('/api/files/hello%20world'), expect: { status: 200, params: { name: 'hello world' } }, core: true },
  { rule: 'encoding', name: 'UTF-8 params are decoded', fixture: blog, request: get('/api/files/caf%C3%A9'), expect: { status: 200, params: { name: 'café' } } },
  { rule: 'encoding', name: 'an encoded slash stays inside its param', fixture: blog, request: get('/api/files/a%2Fb'), expect: { status: 200, handler: 'files.show', params: { name: 'a/b' } }, core: true },
  { rule: 'encoding', name: 'constraints test the decoded value', fixture: blog, request: get('/api/posts/%31%32'), expect: { status: 200, handler: 'posts.show', params: { id: '12' } } },
  { rule: 'encoding', name: 'malformed percent-encoding: 400', fixture: blog, request: get('/api/files/%E0%A4%A'), expect: { status: 400, error: /Malformed percent-encoding in path parameter "name"/ }, core: true },
  { rule: 'encoding', name: 'invalid UTF-8 in a param: 400', fixture: blog, request: get('/api/files/%FF'), expect: { status: 400, error: /percent-encoding/ } },
  { rule: 'encoding', name: 'a non-ASCII static segment matches its encoded form', fixture: blog, request: get('/caf%C3%A9'), expect: { status: 200, handler: 'cafe' }, core: true },
  { rule: 'encoding', name: 'regex characters in a static segment are literal', fixture: blog, request: get('/api/v.1/x'), expect: { status: 200, handler: 'dotted', params: { x: 'x' } } },
  { rule: 'encoding', name: '"." in a static segment does not match any character', fixture: blog, request: get('/api/vX1/x'), expect: { status: 404, handler: 'api.fallback' } },

  // Rule 3: constraints.
  { rule: 'constraints', name: 'a failing constraint falls through to a later route', fixture: blog, request: get('/api/posts/hello-world'), expect: { status: 200, handler: 'posts.bySlug', params: { slug: 'hello-world' } }, core: true },
  { rule: 'constraints', name: 'failing every route falls through to the fallback', fixture: blog, request: get('/api/posts/Hello_World'), expect: { status: 404, handler: 'api.fallback' }, core: true },
  { rule: 'constraints', name: 'failing the optional param falls through to the fallback', fixture: blog, request: get('/api/archive/24'), expect: { status: 404, handler: 'api.fallback' } },
  { rule: 'constraints', name: 'first of two constrained params fails', fixture: blog, request: get('/api/users/ab/posts/intro'), expect: { status: 404, handler: 'api.fallback' } },
  { rule: 'constraints', name: 'second of two constrained params fails', fixture: blog, request: get('/api/users/12/posts/123'), expect: { status: 404, handler: 'api.fallback' } },
  { rule: 'constraints', name: 'a constraint failure with no fallback: 404 envelope', fixture: noFallback, request: get('/api/posts/abc'), expect: { status: 404, error: /^Not Found$/ }, core: true },
  { rule: 'constraints', name: 'string constraint', fixture: blog, request: get('/api/products/ABC-12'), expect: { status: 200, handler: 'products.show', params: { sku: 'ABC-12' } } },
  { rule: 'constraints', name: 'anchored: no match on a prefix', fixture: blog, request: get('/api/products/ABC-12x'), expect: { status: 404, handler: 'api.fallback' } },
  { rule: 'constraints', name: 'anchored: no match on a suffix', fixture: blog, request: get('/api/products/xABC-12'), expect: { status: 404, handler: 'api.fallback' } },
  { rule: 'constraints', name: 'a written ^...$ changes nothing', fixture: blog, request: get('/api/codes/123'), expect: { status: 200, params: { code: '123' } } },
  { rule: 'constraints', name: 'a written ^...$ still rejects', fixture: blog, request: get('/api/codes/12a'), expect: { status: 404, handler: 'api.fallback' } },

  // Rule 4: case-sensitive paths, method must match.
  { rule: 'case', name: 'exact case matches', fixture: blog, request: get('/api/Case'), expect: { status: 200, handler: 'case.upper' } },
  { rule: 'case', name: 'other case does not match', fixture: blog, request: get('/api/case'), expect: { status: 404, handler: 'api.fallback' }, core: true },
  { rule: 'case', name: 'the /api prefix is case-sensitive too', fixture: blog, request: get('/API/posts'), expect: { status: 404, handler: 'web.fallback' } },

  // Definition order across the table's buckets.
  { rule: 'order', name: 'the first defined route wins, even with a shorter static prefix', fixture: buckets, request: get('/posts/list'), expect: { status: 200, handler: 'generic.list', params: { section: 'posts' } }, core: true },
  { rule: 'order', name: 'a param route at the root answers under a static prefix other routes use', fixture: buckets, request: get('/posts'), expect: { status: 200, handler: 'page', params: { page: 'posts' } } },
  { rule: 'order', name: 'a deeper static route', fixture: buckets, request: get('/a/b/c/d'), expect: { status: 200, handler: 'deep', params: {} } },
  { rule: 'order', name: 'a param after one static segment, under a deeper static bucket', fixture: buckets, request: get('/a/b/c'), expect: { status: 200, handler: 'a.x.c', params: { x: 'b' } } },
  { rule: 'order', name: 'a constrained route in a deeper bucket', fixture: buckets, request: get('/posts/12'), expect: { status: 200, handler: 'posts.show', params: { id: '12' } } },
  { rule: 'order', name: 'nothing matches: 404', fixture: buckets, request: get('/posts/abc'), expect: { status: 404, error: /^Not Found$/ } },

  // Trailing slash: tolerated.
  { rule: 'trailing slash', name: 'static route', fixture: blog, request: get('/api/posts/'), expect: { status: 200, handler: 'posts.index' }, core: true },
  { rule: 'trailing slash', name: 'constrained param', fixture: blog, request: get('/api/posts/7/'), expect: { status: 200, handler: 'posts.show', params: { id: '7' } } },
  { rule: 'trailing slash', name: 'root', fixture: blog, request: get('/'), expect: { status: 200, handler: 'home' } },
  { rule: 'trailing slash', name: 'a query string plays no part in matching', fixture: blog, request: get('/api/archive/2024/?page=2&sort=desc'), expect: { status: 200, handler: 'archive', params: { year: '2024' } }, core: true },

  // Rule 5 and 6: groups, middleware order.
  {
    rule: 'groups', name: 'nested prefixes concatenate; global, group, alias and route middleware run in order', fixture: layered,
    request: get('/api/outer/inner/leaf'),
    expect: {
      status: 200, handler: 'leaf',
      trail: ['global1', 'global2', 'outer', 'tag(x|y)', 'route1', 'route2'],
      headers: { 'X-After': 'route2,route1,tag(x|y),outer,global2,global1' },
    },
    core: true,
  },
  { rule: 'groups', name: 'an inner prefix alone does not match', fixture: layered, request: get('/api/inner/leaf'), expect: { status: 404, headers: { 'X-After': 'global2,global1' } } },
  {
    rule: 'middleware', name: 'a middleware answering early stops the chain; outer layers still see the response', fixture: layered,
    request: get('/api/outer/inner/denied'),
    expect: { status: 403, error: /^Denied by middleware$/, headers: { 'X-After': 'tag(x|y),outer,global2,global1' } },
  },
  {
    rule: 'middleware', name: "a handler's exception is a response to every layer", fixture: layered,
    request: get('/api/outer/inner/boom'),
    expect: { status: 500, error: /^Internal Server Error$/, headers: { 'X-After': 'tag(x|y),outer,global2,global1' } },
  },
  { rule: 'middleware', name: 'global middleware runs on 404', fixture: layered, request: get('/nowhere'), expect: { status: 404, headers: { 'X-After': 'global2,global1' } }, core: true },
  { rule: 'middleware', name: 'global middleware runs on 405', fixture: layered, request: req('DELETE', '/api/outer/inner/leaf'), expect: { status: 405, headers: { 'X-After': 'global2,global1' } } },
  { rule: 'middleware', name: 'global middleware runs on OPTIONS', fixture: layered, request: req('OPTIONS', '/api/outer/inner/leaf'), expect: { status: 204, headers: { 'X-After': 'global2,global1' } } },
  { rule: 'middleware', name: 'global middleware runs on a 400 for malformed encoding', fixture: layered, request: get('/api/items/%E0%A4%A'), expect: { status: 400, headers: { 'X-After': 'global2,global1' } } },
  { rule: 'CORS', name: 'a 400 for a malformed path from an allowed origin is marked', fixture: withCors, request: get('/api/posts/%E0%A4%A', { Origin: 'https://app.example' }), expect: { status: 400, headers: { 'Access-Control-Allow-Origin': 'https://app.example' } } },
  { rule: 'middleware', name: 'global middleware runs on the health routes', fixture: layered, request: get('/health/live'), expect: { status: 200, headers: { 'X-After': 'global2,global1' } } },
  { rule: 'middleware', name: "version(n, ..., { middleware })", fixture: layered, request: get('/api/v2/versioned'), expect: { status: 200, trail: ['global1', 'global2', 'v2'] } },

  // Middleware aliases.
  { rule: 'aliases', name: 'alias arguments are split on commas and trimmed', fixture: layered, request: get('/api/outer/inner/leaf'), expect: { status: 200, trail: ['global1', 'global2', 'outer', 'tag(x|y)', 'route1', 'route2'] } },
  { rule: 'aliases', name: '.throttle(60, 1) is the alias throttle:60,1', fixture: layered, request: get('/api/throttled'), expect: { status: 200, trail: ['global1', 'global2', 'throttle(60|1)'] } },

  // Versioning.
  { rule: 'versioning', name: 'version(1)', fixture: versionGroups, request: get('/api/v1/items/3'), expect: { status: 200, handler: 'items.v1', params: { id: '3' } }, core: true },
  { rule: 'versioning', name: 'version(2) side by side', fixture: versionGroups, request: get('/api/v2/items/3'), expect: { status: 200, handler: 'items.v2', params: { id: '3' } }, core: true },
  { rule: 'versioning', name: 'an undefined version is a 404', fixture: versionGroups, request: get('/api/v3/items/3'), expect: { status: 404 } },
  { rule: 'versioning', name: "group('v1') in routes/api = version(1)", fixture: apiPrefixGroups, request: get('/api/v1/items/3'), expect: { status: 200, handler: 'items.v1', params: { id: '3' } } },
  { rule: 'versioning', name: "group('v2') in routes/api = version(2)", fixture: apiPrefixGroups, request: get('/api/v2/items/3'), expect: { status: 200, handler: 'items.v2', params: { id: '3' } } },
  { rule: 'versioning', name: "nested group('api') > group('v1') in routes/web = version(1)", fixture: webPrefixGroups, request: get('/api/v1/items/3'), expect: { status: 200, handler: 'items.v1', params: { id: '3' } }, core: true },
  { rule: 'versioning', name: "group('api/v2') in routes/web = version(2)", fixture: webPrefixGroups, request: get('/api/v2/items/3'), expect: { status: 200, handler: 'items.v2', params: { id: '3' } } },
  { rule: 'versioning', name: 'constraints hold inside version groups', fixture: versionGroups, request: get('/api/v1/items/x'), expect: { status: 404 } },

  // Rule 7: fallback.
  { rule: 'fallback', name: 'an /api path gets the api fallback', fixture: blog, request: get('/api/nothing/here'), expect: { status: 404, handler: 'api.fallback' }, core: true },
  { rule: 'fallback', name: '/api itself gets the api fallback', fixture: blog, request: get('/api'), expect: { status: 404, handler: 'api.fallback' } },
  { rule: 'fallback', name: 'another path gets the web fallback', fixture: blog, request: get('/nothing/here'), expect: { status: 404, handler: 'web.fallback' }, core: true },
  { rule: 'fallback', name: '/apiary is not under /api', fixture: blog, request: get('/apiary'), expect: { status: 404, handler: 'web.fallback' } },
  { rule: 'fallback', name: 'the only fallback answers web paths too', fixture: apiFallbackOnly, request: get('/nothing'), expect: { status: 404, handler: 'api.fallback' } },
  { rule: 'fallback', name: 'fallback with any method', fixture: blog, request: req('POST', '/api/nothing'), expect: { status: 404, handler: 'api.fallback' } },
  {
    rule: 'fallback', name: 'no fallback: the 404 envelope', fixture: noFallback, request: get('/api/nothing'),
    expect: { status: 404, error: /^Not Found$/ }, core: true,
  },
  { rule: 'fallback', name: 'built-in health routes win over the fallback', fixture: blog, request: get('/health/live'), expect: { status: 200 } },

  // Rule 8: 405 with Allow.
  { rule: '405', name: 'POST on a GET-only path', fixture: blog, request: req('POST', '/api/archive/2024'), expect: { status: 405, error: /^Method Not Allowed$/, headers: { Allow: 'GET, HEAD, OPTIONS' } }, core: true },
  { rule: '405', name: 'DELETE on a GET+POST path', fixture: blog, request: req('DELETE', '/api/posts'), expect: { status: 405, headers: { Allow: 'GET, HEAD, POST, OPTIONS' } }, core: true },
  { rule: '405', name: 'POST on a path with four methods', fixture: blog, request: req('POST', '/api/posts/7'), expect: { status: 405, headers: { Allow: 'GET, HEAD, PUT, PATCH, DELETE, OPTIONS' } } },
  { rule: '405', name: "Allow follows the constraints: PUT /posts/{slug} only exists as GET", fixture: blog, request: req('PUT', '/api/posts/hello'), expect: { status: 405, headers: { Allow: 'GET, HEAD, OPTIONS' } } },
  { rule: '405', name: 'HEAD on a POST-only path', fixture: blog, request: req('HEAD', '/api/login'), expect: { status: 405, emptyBody: true, headers: { Allow: 'POST, OPTIONS' } }, core: true },
  { rule: '405', name: 'an extension method on a known path', fixture: blog, request: req('PROPFIND', '/api/posts'), expect: { status: 405, headers: { Allow: 'GET, HEAD, POST, OPTIONS' } } },
  { rule: '405', name: '405 wins over the fallback', fixture: blog, request: req('GET', '/api/login'), expect: { status: 405, headers: { Allow: 'POST, OPTIONS' } } },
  { rule: '405', name: 'a trailing slash still finds the path', fixture: blog, request: req('DELETE', '/api/posts/'), expect: { status: 405, headers: { Allow: 'GET, HEAD, POST, OPTIONS' } } },

  // Rule 9: OPTIONS.
  { rule: 'OPTIONS', name: 'plain OPTIONS: 204 with Allow', fixture: blog, request: req('OPTIONS', '/api/posts'), expect: { status: 204, emptyBody: true, headers: { Allow: 'GET, HEAD, POST, OPTIONS' } }, core: true },
  { rule: 'OPTIONS', name: 'plain OPTIONS with params', fixture: blog, request: req('OPTIONS', '/api/posts/7'), expect: { status: 204, headers: { Allow: 'GET, HEAD, PUT, PATCH, DELETE, OPTIONS' } } },
  { rule: 'OPTIONS', name: 'OPTIONS on an any() route lists every method', fixture: blog, request: req('OPTIONS', '/api/echo'), expect: { status: 204, headers: { Allow: 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS' } } },
  { rule: 'OPTIONS', name: 'OPTIONS on an unknown path goes to the fallback', fixture: blog, request: req('OPTIONS', '/api/nothing'), expect: { status: 404, handler: 'api.fallback' } },
  { rule: 'OPTIONS', name: 'OPTIONS without CORS configured: a preflight is a plain OPTIONS', fixture: blog, request: req('OPTIONS', '/api/posts', { Origin: 'https://app.example', 'Access-Control-Request-Method': 'POST' }), expect: { status: 204, headers: { Allow: 'GET, HEAD, POST, OPTIONS', 'Access-Control-Allow-Origin': null } } },
  {
    rule: 'CORS', name: 'preflight from an allowed origin', fixture: withCors,
    request: req('OPTIONS', '/api/posts', { Origin: 'https://app.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' }),
    expect: {
      status: 204, emptyBody: true,
      headers: {
        'Access-Control-Allow-Origin': 'https://app.example',
        'Access-Control-Allow-Methods': 'GET, HEAD, POST, PUT, PATCH, DELETE',
        'Access-Control-Allow-Headers': 'Content-Type, Authorization, X-Api-Key, X-Requested-With',
        'Access-Control-Max-Age': '600',
        'Access-Control-Allow-Credentials': null,
      },
    },
    core: true,
  },
  { rule: 'CORS', name: 'preflight from the second allowed origin', fixture: withCors, request: req('OPTIONS', '/api/posts', { Origin: 'https://admin.example', 'Access-Control-Request-Method': 'GET' }), expect: { status: 204, headers: { 'Access-Control-Allow-Origin': 'https://admin.example' } } },
  {
    rule: 'CORS', name: 'preflight from another origin: no CORS headers, a plain OPTIONS answer', fixture: withCors,
    request: req('OPTIONS', '/api/posts', { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST' }),
    expect: { status: 204, headers: { 'Access-Control-Allow-Origin': null, 'Access-Control-Allow-Methods': null, Allow: 'GET, HEAD, POST, OPTIONS' } },
    core: true,
  },
  {
    rule: 'CORS', name: 'a simple request from an allowed origin is marked', fixture: withCors, request: get('/api/posts', { Origin: 'https://app.example' }),
    expect: { status: 200, handler: 'posts.index', headers: { 'Access-Control-Allow-Origin': 'https://app.example', 'Access-Control-Expose-Headers': 'X-Service-Trace-Id, Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Idempotent-Replayed', Vary: 'Origin' } },
  },
  // Vary: Origin on the unmarked answers too: a cache that kept one (no Access-Control-Allow-Origin) would give it to
  // the allowed origin's page, which the browser then blocks.
  { rule: 'CORS', name: 'a simple request from another origin is not marked, and varies on Origin', fixture: withCors, request: get('/api/posts', { Origin: 'https://evil.example' }), expect: { status: 200, headers: { 'Access-Control-Allow-Origin': null, Vary: 'Origin' } } },
  { rule: 'CORS', name: 'a request without Origin varies on Origin', fixture: withCors, request: get('/api/posts'), expect: { status: 200, headers: { 'Access-Control-Allow-Origin': null, Vary: 'Origin' } } },
  { rule: 'CORS', name: 'a 404 from an allowed origin is marked (readable by the page)', fixture: withCors, request: get('/api/none', { Origin: 'https://app.example' }), expect: { status: 404, headers: { 'Access-Control-Allow-Origin': 'https://app.example' } } },
]

// ---------------------------------------------------- definition errors

export interface DefinitionErrorCase {
  rule: string
  name: string
  fixture: Fixture
  /** The RouteDefinitionError's message. */
  error: RegExp
}

const handler = answer('unused')

export const definitionErrorCases: DefinitionErrorCase[] = [
  { rule: 'aliases', name: 'unknown alias on a route', fixture: { name: 'x', api: (r) => r.get('/x', handler).middleware('nope') }, error: /Unknown middleware alias "nope"/ },
  { rule: 'aliases', name: 'unknown alias with arguments', fixture: { name: 'x', api: (r) => r.get('/x', handler).middleware('role:admin') }, error: /Unknown middleware alias "role:admin"/ },
  { rule: 'aliases', name: 'unknown alias on a group', fixture: { name: 'x', web: (r) => r.group({ middleware: ['nope'] }, (r) => r.get('/x', handler)) }, error: /Unknown middleware alias "nope"/ },
  { rule: 'aliases', name: 'unknown alias in global middleware', fixture: { name: 'x', middleware: ['nope'] }, error: /Unknown middleware alias "nope"/ },
  {
    rule: 'aliases', name: 'an alias factory rejecting its arguments',
    fixture: {
      name: 'x',
      aliases: {
        limit: (args) => {
          if (args.length !== 2 || !args.every((arg) => /^\d+$/.test(arg))) throw new Error('takes two whole numbers')
          return mark('limit')
        },
      },
      api: (r) => r.get('/x', handler).middleware('limit:ten,1'),
    },
    error: /Middleware alias "limit:ten,1": takes two whole numbers/,
  },
  { rule: 'params', name: 'unclosed brace', fixture: { name: 'x', api: (r) => r.get('/posts/{id', handler) }, error: /a parameter must be a whole segment/ },
  { rule: 'params', name: 'param inside a segment', fixture: { name: 'x', api: (r) => r.get('/posts/x{id}', handler) }, error: /a parameter must be a whole segment/ },
  { rule: 'params', name: 'param name starting with a digit', fixture: { name: 'x', api: (r) => r.get('/posts/{1d}', handler) }, error: /a parameter must be a whole segment/ },
  { rule: 'params', name: 'the same param twice', fixture: { name: 'x', api: (r) => r.get('/a/{id}/b/{id}', handler) }, error: /parameter \{id\} appears twice/ },
  { rule: 'params', name: 'optional param before a required one', fixture: { name: 'x', api: (r) => r.get('/a/{x?}/{y}', handler) }, error: /optional parameters must come last/ },
  { rule: 'params', name: 'optional param before a static segment', fixture: { name: 'x', api: (r) => r.get('/a/{x?}/b', handler) }, error: /optional parameters must come last/ },
  { rule: 'params', name: 'optional param in a group prefix', fixture: { name: 'x', api: (r) => r.group('a/{x?}', (r) => r.get('/b', handler)) }, error: /optional parameters must come last/ },
  { rule: 'constraints', name: 'where() on an unknown param', fixture: { name: 'x', api: (r) => r.get('/posts/{id}', handler).where('slug', /\w+/) }, error: /where\('slug'\) names no parameter/ },
  { rule: 'constraints', name: 'invalid regex source', fixture: { name: 'x', api: (r) => r.get('/posts/{id}', handler).where('id', '(\\d+') }, error: /invalid constraint/ },
  { rule: 'versioning', name: 'version(0)', fixture: { name: 'x', api: (r) => r.version(0, () => {}) }, error: /version\(\) takes a whole number from 1/ },
  { rule: 'versioning', name: 'version(1.5)', fixture: { name: 'x', api: (r) => r.version(1.5, () => {}) }, error: /version\(\) takes a whole number from 1/ },
  { rule: 'methods', name: 'a handler that is not a function', fixture: { name: 'x', api: (r) => r.get('/x', 'posts@index' as unknown as Handler) }, error: /the handler must be a function/ },
]

/** `parseAlias` on the spec's alias forms. */
export const aliasParseCases: Array<{ alias: string; name: string; args: string[] }> = [
  { alias: 'auth', name: 'auth', args: [] },
  { alias: 'auth:admin', name: 'auth', args: ['admin'] },
  { alias: 'auth:admin,moderator', name: 'auth', args: ['admin', 'moderator'] },
  { alias: 'throttle:60,1', name: 'throttle', args: ['60', '1'] },
  { alias: ' throttle : 100 , 1440 ', name: 'throttle', args: ['100', '1440'] },
]
