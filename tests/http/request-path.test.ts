/**
 * `c.path` is read from `request.url` without parsing it when the path is
 * already canonical (a hot-path saving): it must always equal what
 * `new URL(url).pathname` gives, including for URLs a runtime hands over
 * unnormalised, and `c.url` / `c.query` still parse on demand.
 */
import { describe, expect, it } from 'vitest'
import { Context, resolveConfig } from 'svc'

function contextFor(url: string): Context {
  // A Request-like whose url is kept verbatim (a native Request would normalise it first).
  const request = { url, method: 'GET', headers: new Headers() } as unknown as Request
  return new Context({ request, traceId: 'svc_0', ip: undefined, config: resolveConfig({}), db: undefined, env: undefined, executionCtx: undefined })
}

const urls = [
  'http://127.0.0.1:3000/hello',
  'http://127.0.0.1:3000/users/42?expand=posts&x=/y',
  'http://example.test/api/v1/posts/a%2Fb#frag',
  'http://example.test/caf%C3%A9',
  'http://example.test/café',
  'http://example.test/a b',
  'http://example.test/a/./b',
  'http://example.test/a/../b',
  'http://example.test/a/%2e%2E/b',
  'http://example.test/a/%2E/b',
  'http://example.test/.well-known/jwks.json',
  'http://example.test/a\\b',
  'http://example.test//double//slashes/',
  'http://example.test/trailing/',
  'http://example.test',
  'http://example.test?q=/not/a/path',
  'http://example.test#/not/a/path',
  'http://example.test/%zz/100%',
  'http://example.test/{x}/[y]/|z|/^/`',
  "http://example.test/~user/a-b_c.d!$&'()*+,;=:@",
  'http://user@example.test/p',
]

describe('Context.path', () => {
  it.each(urls)('%s', (url) => {
    const c = contextFor(url)
    expect(c.path).toBe(new URL(url).pathname)
    expect(c.url.href).toBe(new URL(url).href)
    expect([...c.query]).toEqual([...new URL(url).searchParams])
  })

  it('matches a native Request too', () => {
    const request = new Request('http://example.test/a/../b c?d=e')
    const c = new Context({ request, traceId: 'svc_0', ip: undefined, config: resolveConfig({}), db: undefined, env: undefined, executionCtx: undefined })
    expect(c.path).toBe('/b%20c')
    expect(c.query.get('d')).toBe('e')
  })

  it('uses a URL given to it', () => {
    const url = new URL('http://example.test/given')
    const request = { url: 'http://example.test/other', method: 'GET', headers: new Headers() } as unknown as Request
    const c = new Context({ request, url, traceId: 'svc_0', ip: undefined, config: resolveConfig({}), db: undefined, env: undefined, executionCtx: undefined })
    expect(c.path).toBe('/given')
    expect(c.url).toBe(url)
  })
})
