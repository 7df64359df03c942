/**
 * The path glob the editor asks the CLI with for a route's traces
 * (`pathGlob`, `/api/v1/posts/{id}` => `/api/v1/posts/*`) against the trace
 * filters' matcher (`pathMatcher`): every path the router matches to the route
 * is matched, trailing slashes included (routes tolerate any number of them),
 * and a sibling route's paths are not. In process, no store.
 */
import { describe, expect, it } from 'vitest'
import { compilePath, pathGlob } from '../../framework/router/path-grammar.ts'
import { pathMatcher } from '../../framework/trace/path-glob.ts'

/** Request paths, each spelled with and without trailing slashes. */
const PATHS = ['/api/v1/posts', '/api/v1/posts/5', '/api/v1/posts/5/comments', '/api/v1/posts/5/comments/9', '/api/v1/posts/archive', '/api/v1/posts/archive/2026', '/api/v2/posts/5'].flatMap((path) => [path, `${path}/`, `${path}//`])

describe("a route's trace glob", () => {
  it.each(['/api/v1/posts/{id}', '/api/v1/posts/{id}/comments', '/api/v1/posts/{id}/comments/{comment}', '/api/v1/posts/archive/{year?}', '/api/{version}/posts/{id}'])('matches every path the router matches to %s, trailing slashes or not', (route) => {
    const routed = compilePath(route).regex
    const matches = pathMatcher(pathGlob(route))
    const missed = PATHS.filter((path) => routed.test(path) && !matches(path))
    expect(missed).toEqual([])
  })

  it('does not catch a sibling route with more segments or fewer (its constraints are for the view: it keeps the traces whose matched route is this one)', () => {
    const matches = pathMatcher(pathGlob('/api/v1/posts/{id}'))
    expect(PATHS.filter(matches)).toEqual(['/api/v1/posts/5', '/api/v1/posts/5/', '/api/v1/posts/5//', '/api/v1/posts/archive', '/api/v1/posts/archive/', '/api/v1/posts/archive//'])
  })
})

describe('path globs and trailing slashes', () => {
  it('tolerate them on the path and on the glob, as routes do', () => {
    expect(pathMatcher('/health/*')('/health/ready/')).toBe(true)
    expect(pathMatcher('/health/*/')('/health/ready')).toBe(true)
    expect(pathMatcher('/api/**')('/api/v1/posts/')).toBe(true)
    expect(pathMatcher('/api/*/posts')('/api/v1/posts/')).toBe(true)
  })

  it('still keep * within one segment', () => {
    expect(pathMatcher('/health/*')('/health/db/ping')).toBe(false)
    expect(pathMatcher('/health/*')('/health/db/ping/')).toBe(false)
    expect(pathMatcher('/api/v?/posts')('/api/v1/posts/x')).toBe(false)
    // A whole-segment * is one segment, as a route parameter is; inside a segment it may be empty.
    expect(pathMatcher('/api/v1/posts/*')('/api/v1/posts/')).toBe(false)
    expect(pathMatcher('/api/v*')('/api/v')).toBe(true)
  })
})

describe('paths a URL writes percent-encoded', () => {
  const stored = new URL('/api/v1/tags/café crème', 'http://x').pathname // '/api/v1/tags/caf%C3%A9%20cr%C3%A8me'

  it('are found by the pattern as people read them, as a substring or a glob', () => {
    for (const pattern of ['café', 'café crème', '/api/v1/tags/café*', '/api/*/tags/*', '/api/**/caf? *']) expect(pathMatcher(pattern)(stored), pattern).toBe(true)
  })

  it('and by the pattern as the URL writes them; a pattern of neither form does not match', () => {
    expect(pathMatcher('caf%C3%A9')(stored)).toBe(true)
    expect(pathMatcher('cafe')(stored)).toBe(false)
    expect(pathMatcher('/api/v1/tags/thé')(stored)).toBe(false)
    // A path whose percent-escapes are not UTF-8 is still read as stored, never thrown on.
    expect(pathMatcher('é')('/api/%E9')).toBe(false)
    // An encoded slash stays inside its segment: `*` does not reach across it as if it were two.
    expect(pathMatcher('/files/*/é')('/files/a%2Fb/%C3%A9')).toBe(true)
    expect(pathMatcher('/files/*/*/é')('/files/a%2Fb/%C3%A9')).toBe(false)
  })
})
