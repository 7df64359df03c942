/**
 * Pagination parameters (issue 11, item 11): `GET /api/v1/posts?page=1e300`
 * was a 500 (SQLITE_MISMATCH: 1e300 passed `Number.isInteger` and reached
 * SQL as an offset). `paginationQuery()`, declared on a route, answers 422
 * for anything but a whole number in range, in svc's message style.
 */
import { describe, expect, it } from 'vitest'
import { checkWith, createApp, defineRoutes, paginationQuery, type Context } from 'svc'
import { createTestClient } from 'svc/testing'
import { testConfig } from '../helpers/app.ts'
import { toJsonSchema } from '../../cli/schemas/to-json-schema.ts'

const ListQuery = paginationQuery()

function listApp() {
  return createApp({
    config: testConfig(),
    api: defineRoutes((r) => r.get('/items', (c: Context<string, { query: typeof ListQuery }>) => c.query).query(ListQuery)),
  })
}

describe('paginationQuery', () => {
  it('defaults to page 1 of 20; reads page and per_page; gives limit and offset', async () => {
    const client = createTestClient(listApp())
    expect((await client.get('/api/items')).body.data).toEqual({ page: 1, perPage: 20, limit: 20, offset: 0 })
    expect((await client.get('/api/items?page=3&per_page=50&sort=new')).body.data).toEqual({ page: 3, perPage: 50, limit: 50, offset: 100 })
    expect(await checkWith(paginationQuery({ perPage: 10 }), { page: '2' })).toEqual({ ok: true, value: { page: 2, perPage: 10, limit: 10, offset: 10 } })
  })

  it.each([
    ['1e300', 'The page field must contain only digits.'],
    ['-1', 'The page field must contain only digits.'],
    ['1.5', 'The page field must contain only digits.'],
    ['0x10', 'The page field must contain only digits.'],
    ['', 'The page field must contain only digits.'],
    ['0', 'The page field must be at least 1.'],
    ['1000001', 'The page field must not be greater than 1000000.'],
    ['99999999999999999999', 'The page field must not be greater than 1000000.'],
  ])('refuses page=%s with 422 before the handler runs', async (page, message) => {
    const response = await createTestClient(listApp()).get(`/api/items?page=${encodeURIComponent(page)}`)
    expect(response.status).toBe(422)
    expect(response.body).toEqual({ success: false, error: 'The given data was invalid.', code: 422, errors: { page: [message] } })
  })

  it('bounds per_page (100 by default, maxPerPage) and page (maxPage), naming every bad field at once', async () => {
    const response = await createTestClient(listApp()).get('/api/items?page=x&per_page=101')
    expect(response.body.errors).toEqual({
      page: ['The page field must contain only digits.'],
      per_page: ['The per page field must not be greater than 100.'],
    })
    expect(await checkWith(paginationQuery({ maxPerPage: 500 }), { per_page: '500' })).toMatchObject({ ok: true, value: { perPage: 500 } })
    expect(await checkWith(paginationQuery({ maxPage: 7 }), { page: '8' }, 'query')).toEqual({
      ok: false,
      errors: { page: ['The page field must not be greater than 7.'] },
    })
  })

  it('tells the API description its bounds, which JSON Schema cannot state of a string of digits', () => {
    const { schema } = toJsonSchema(paginationQuery({ perPage: 25, maxPerPage: 50 }) as never, { direction: 'input' })
    expect(schema).toMatchObject({
      properties: {
        page: { type: 'string', pattern: '^\\d+$', default: '1', description: 'A whole number from 1 to 1,000,000 (default 1).' },
        per_page: { type: 'string', pattern: '^\\d+$', default: '25', description: 'A whole number from 1 to 50 (default 25).' },
      },
    })
  })

  it('a repeated page (?page=1&page=2) is refused, not guessed', async () => {
    const response = await createTestClient(listApp()).get('/api/items?page=1&page=2')
    expect(response.status).toBe(422)
    expect(response.body.errors.page).toEqual(['The page field must be given only once.'])
    // The same list in a body is still named by its type.
    expect(await checkWith(paginationQuery(), { page: ['1', '2'] }, 'body')).toMatchObject({ ok: false, errors: { page: ['The page field must be a string.'] } })
  })
})
