/**
 * What itty answered for a path that matched a route without parameters is
 * answered again synchronously (no promise, no regex): the answer must be the
 * one itty gives, only for that spelling of the path, and the app's fetch
 * then answers synchronously too (the Node adapter writes it without a promise).
 */
import { describe, expect, it } from 'vitest'
import { createApp, defineRoutes, resolveConfig } from '../../framework/index.ts'
import { compilePath } from '../../framework/router/path-grammar.ts'
import { RouteTable } from '../../framework/router/route-table.ts'
import type { RouteMethod } from '../../framework/router/types.ts'

let tried = 0
class CountingRegExp extends RegExp {
  override exec(text: string): RegExpExecArray | null {
    tried++
    return super.exec(text)
  }
}

function table(routes: Array<[RouteMethod, string]>) {
  return new RouteTable(
    routes.map(([method, path]) => ({ method, pattern: { ...compilePath(path), regex: new CountingRegExp(compilePath(path).regex) }, where: new Map(), value: `${method} ${path}` })),
  )
}

const find = (t: RouteTable<string>, path: string, method = 'GET') => t.find(method, `http://x${path}`, path)

describe('static answers', () => {
  it('asks itty once for a static path, then answers synchronously with the same route and fresh params', async () => {
    const t = table([['GET', '/hello'], ['POST', '/hello']])
    const first = find(t, '/hello')
    expect(first).toBeInstanceOf(Promise)
    expect((await first)?.value).toBe('GET /hello')
    tried = 0
    const again = find(t, '/hello')
    expect(again).not.toBeInstanceOf(Promise)
    expect(again).toEqual({ value: 'GET /hello', params: {} })
    expect(tried).toBe(0)
    // Each answer has its own params object: a handler writing to c.params touches no other request.
    expect((again as { params: object }).params).not.toBe((find(t, '/hello') as { params: object }).params)
    // Per method: POST asks itty for its own route; HEAD is GET's.
    expect((await find(t, '/hello', 'POST'))?.value).toBe('POST /hello')
    expect(find(t, '/hello', 'HEAD')).toEqual({ value: 'GET /hello', params: {} })
  })

  it('remembers nothing a parameter matched, even where a static route comes later', async () => {
    const t = table([['GET', '/posts/{id}'], ['GET', '/posts/new']])
    await find(t, '/posts/new')
    const again = find(t, '/posts/new')
    expect(again).toBeInstanceOf(Promise)
    expect(await again).toEqual({ value: 'GET /posts/{id}', params: { id: 'new' } })
  })

  it('remembers only the spelling without trailing slashes (any number of them matches the route)', async () => {
    const t = table([['GET', '/hello']])
    for (const path of ['/hello/', '/hello//', '/hello///']) {
      expect((await find(t, path))?.value).toBe('GET /hello')
      expect(find(t, path)).toBeInstanceOf(Promise)
    }
    expect(await find(t, '/hello')).toEqual({ value: 'GET /hello', params: {} })
    expect(find(t, '/hello')).not.toBeInstanceOf(Promise)
  })

  it('an unmatched path stays unmatched, and 405 still lists what the path allows', async () => {
    const t = table([['POST', '/login']])
    await find(t, '/login', 'POST')
    expect(await find(t, '/login')).toBeUndefined()
    expect(await t.allowedMethods('/login', '/login')).toEqual(['POST'])
  })

  it("the app's fetch answers a static route synchronously from the second request on, and the same way", async () => {
    const app = createApp({
      config: resolveConfig({ APP_ENV: 'production' }),
      web: defineRoutes((r) => {
        r.get('/hello', () => ({ message: 'hi' }))
      }),
    })
    const answers = [app.fetch(new Request('http://localhost/hello')), app.fetch(new Request('http://localhost/hello'))]
    expect(answers[0]).toBeInstanceOf(Promise)
    expect(answers[1]).toBeInstanceOf(Response)
    for (const answer of answers) {
      const response = await answer
      expect(response.status).toBe(200)
      expect(response.headers.get('x-service-trace-id')).toMatch(/^svc_/)
      expect(await response.json()).toEqual({ success: true, data: { message: 'hi' } })
    }
  })
})
