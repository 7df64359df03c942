/**
 * Pagination parameters (issue 11, item 11): `GET /api/v1/posts?page=1e300`
 * was a 500 (SQLITE_MISMATCH: 1e300 passed `Number.isInteger` and reached
 * SQL as an offset). `paginate` / `paginationQuery` answer 422 for anything
 * but a whole number in range.
 */
import { describe, expect, it } from 'vitest'
import { createApp, defineRoutes, paginate, paginationQuery, ValidationError } from 'svc'
import { createTestClient } from 'svc/testing'
import { testConfig } from '../helpers/app.ts'

describe('paginate', () => {
  it('defaults to page 1 of 20; reads page and per_page', () => {
    expect(paginate(new URLSearchParams())).toEqual({ page: 1, perPage: 20, limit: 20, offset: 0 })
    expect(paginate(new URLSearchParams('page=3&per_page=50'))).toEqual({ page: 3, perPage: 50, limit: 50, offset: 100 })
    expect(paginate({ page: '2' }, { perPage: 10 })).toEqual({ page: 2, perPage: 10, limit: 10, offset: 10 })
    expect(paginate(new URLSearchParams('page=')), 'empty is absent').toMatchObject({ page: 1 })
  })

  it.each(['1e300', '0', '-1', '1.5', '0x10', ' 2', 'abc', '1000001', '99999999999999999999', 'Infinity', 'NaN'])('refuses page=%s with 422', (page) => {
    let error: unknown
    try {
      paginate(new URLSearchParams({ page }))
    } catch (caught) {
      error = caught
    }
    expect(error).toBeInstanceOf(ValidationError)
    expect((error as ValidationError).errors).toEqual({ page: ['The page field must be a whole number between 1 and 1000000.'] })
  })

  it('bounds per_page (default 100) and names every bad field at once', () => {
    expect(paginate(new URLSearchParams('per_page=100')).perPage).toBe(100)
    expect(() => paginate(new URLSearchParams('page=x&per_page=101'))).toThrow(ValidationError)
    try {
      paginate(new URLSearchParams('page=x&per_page=101'), { maxPerPage: 100 })
    } catch (error) {
      expect((error as ValidationError).errors).toEqual({
        page: ['The page field must be a whole number between 1 and 1000000.'],
        per_page: ['The per page field must be a whole number between 1 and 100.'],
      })
    }
    expect(paginate(new URLSearchParams('page=7'), { maxPage: 7 }).page).toBe(7)
  })

  it('is a Standard Schema (for routes that declare their query)', async () => {
    const schema = paginationQuery({ perPage: 5 })
    expect(schema['~standard'].version).toBe(1)
    expect(await schema['~standard'].validate({ page: '4' })).toEqual({ value: { page: 4, perPage: 5, limit: 5, offset: 15 } })
    expect(await schema['~standard'].validate({ page: '1e300' })).toMatchObject({ issues: [{ path: ['page'] }] })
  })

  it('in a route: 422 in the envelope, the handler never sees the value', async () => {
    const app = createApp({
      config: testConfig(),
      api: defineRoutes((r) => r.get('/items', (c) => paginate(c.query))),
    })
    const client = createTestClient(app)
    const bad = await client.get('/api/items?page=1e300')
    expect(bad.status).toBe(422)
    expect(bad.body).toEqual({
      success: false,
      error: 'The given data was invalid.',
      code: 422,
      errors: { page: ['The page field must be a whole number between 1 and 1000000.'] },
    })
    expect((await client.get('/api/items?page=2')).body.data).toEqual({ page: 2, perPage: 20, limit: 20, offset: 20 })
  })
})
