/**
 * The route table's buckets (method + leading static segments, up to
 * BUCKET_DEPTH) must not change which route answers: the first in definition
 * order, whatever the depth of each route's static prefix.
 */
import { describe, expect, it } from 'vitest'
import { compilePath } from '../../framework/router/path-grammar.ts'
import { RouteTable } from '../../framework/router/route-table.ts'
import type { RouteMethod } from '../../framework/router/types.ts'

// Counts the path regexes tried, to show how many routes a request is tested against.
let tried = 0
class CountingRegExp extends RegExp {
  override exec(text: string): RegExpExecArray | null {
    tried++
    return super.exec(text)
  }
}

function table(routes: Array<[RouteMethod, string, Record<string, RegExp>?]>) {
  return new RouteTable(
    routes.map(([method, path, where = {}]) => ({
      method,
      pattern: { ...compilePath(path), regex: new CountingRegExp(compilePath(path).regex) },
      where: new Map(Object.entries(where).map(([name, regex]) => [name, new RegExp(`^(?:${regex.source})$`)])),
      value: path,
    })),
  )
}

const find = (t: RouteTable<string>, path: string, method = 'GET') => t.find(method, `http://x${path}`, path)

describe('route table buckets', () => {
  it('the first route in definition order wins across bucket depths', async () => {
    const shallowFirst = table([
      ['GET', '/api/{a}/{b}/{c}'],
      ['GET', '/api/v1/posts/{id}'],
    ])
    expect((await find(shallowFirst, '/api/v1/posts/1'))?.value).toBe('/api/{a}/{b}/{c}')
    const deepFirst = table([
      ['GET', '/api/v1/posts/{id}'],
      ['GET', '/api/{a}/{b}/{c}'],
    ])
    expect((await find(deepFirst, '/api/v1/posts/1'))?.value).toBe('/api/v1/posts/{id}')
  })

  it('a failed constraint in a deep bucket falls through to a shallower route', async () => {
    const t = table([
      ['GET', '/api/v1/posts/{id}', { id: /\d+/ }],
      ['GET', '/{any}/{b}/{c}/{d}'],
    ])
    expect((await find(t, '/api/v1/posts/abc'))?.value).toBe('/{any}/{b}/{c}/{d}')
    expect(await find(t, '/api/v1/posts/7')).toEqual({ value: '/api/v1/posts/{id}', params: { id: '7' } })
  })

  it('a path under no bucket of its own uses the deepest ancestor that exists', async () => {
    const t = table([
      ['GET', '/api/v1/posts/{id}'],
      ['GET', '/api/v1/{resource}/{id}'],
    ])
    expect((await find(t, '/api/v1/comments/3'))?.value).toBe('/api/v1/{resource}/{id}')
    expect(await find(t, '/api/v2/comments/3')).toBeUndefined()
  })

  it('finds the last of 1,000 routes under one version prefix, and deeper than four segments', async () => {
    const routes: Array<[RouteMethod, string]> = []
    for (let i = 0; i < 999; i++) routes.push(['GET', `/api/v1/r${i}/items/{id}`])
    routes.push(['GET', '/api/v1/target/items/deep/{id}'])
    const t = table(routes)
    tried = 0
    expect(await find(t, '/api/v1/target/items/deep/42')).toEqual({ value: '/api/v1/target/items/deep/{id}', params: { id: '42' } })
    expect((await find(t, '/api/v1/r998/items/5'))?.value).toBe('/api/v1/r998/items/{id}')
    expect(await find(t, '/api/v1/r998/items/5', 'POST')).toBeUndefined()
    // Two lookups, each against its own bucket's one route: not 1,000 regexes a request.
    expect(tried).toBe(2)
  })
})
