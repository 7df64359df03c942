/**
 * The app answers synchronously when nothing on the way is asynchronous, for
 * svc's own Node adapter (a Response written at once, no promise); `fetch`
 * stays a promise, and middleware still get a promise from `next()`.
 */
import { describe, expect, it } from 'vitest'
import { createApp, defineRoutes, resolveConfig, type Middleware } from 'svc'
import { HANDLE, type SyncableFetch } from '../../framework/app/create-app.ts'

const thenable: Middleware = (_c, next) => next().then((response) => response)

function app(middleware: Middleware[] = []) {
  const built = createApp({
    config: resolveConfig({ APP_ENV: 'production' }),
    middleware,
    web: defineRoutes((r) => {
      r.get('/plain', () => ({ plain: true }))
      r.get('/async', async () => ({ async: true }))
      r.get('/throws', () => {
        throw new Error('boom')
      })
      r.get('/items/{id}', (c) => ({ id: c.params.id })).where('id', /\d+/)
    }),
  })
  return { fetch: built.fetch, handle: (built as unknown as Record<symbol, SyncableFetch>)[HANDLE]! }
}

const request = (path: string, method = 'GET') => new Request(`http://svc.test${path}`, { method })

describe('synchronous answers', () => {
  it('a plain handler without middleware answers with a Response, not a promise', async () => {
    const { handle } = app()
    for (const path of ['/plain', '/throws', '/items/7']) {
      const response = handle(request(path))
      expect(response).toBeInstanceOf(Response)
      expect((response as Response).headers.get('x-service-trace-id')).toMatch(/^svc_[0-9a-f]{32}$/)
    }
    expect(await (handle(request('/plain')) as Response).json()).toEqual({ success: true, data: { plain: true } })
    expect((handle(request('/throws')) as Response).status).toBe(500)
    expect((handle(request('/plain', 'HEAD')) as Response).body).toBeNull()
  })

  it('an async handler, an unmatched path or middleware answer with a promise', async () => {
    expect(app().handle(request('/async'))).toBeInstanceOf(Promise)
    expect(app().handle(request('/nope'))).toBeInstanceOf(Promise)
    expect(app().handle(request('/items/x'))).toBeInstanceOf(Promise)
    const withMiddleware = app([thenable]).handle(request('/plain'))
    expect(withMiddleware).toBeInstanceOf(Promise)
    expect(await (await withMiddleware).json()).toEqual({ success: true, data: { plain: true } })
  })

  it('fetch always returns a promise', async () => {
    const result = app().fetch(request('/plain'))
    expect(result).toBeInstanceOf(Promise)
    expect((await result).status).toBe(200)
  })
})
