/**
 * The pagination parameters of a list route (`?page=2&per_page=50`) as a
 * query schema to declare on the route: whole numbers in range, else 422 in
 * svc's message style ("The page field must be at least 1."), so that
 * `?page=1e300` or `?page=-1` never reaches SQL (`?page=1e300` was a 500,
 * SQLITE_MISMATCH). The handler reads `c.query`: `{ page, perPage, limit, offset }`.
 *
 * @example
 * export const ListQuery = paginationQuery({ perPage: 20 })
 * r.get('/posts', listPosts).query(ListQuery)
 * // in listPosts(c: Context<string, { query: typeof ListQuery }>):
 * const { limit, offset } = c.query
 * await c.db.all('select * from posts order by id desc limit ? offset ?', [limit, offset])
 */
import * as v from 'valibot'

export interface PaginationOptions {
  /** Items per page when `per_page` is not given; default 20. */
  perPage?: number
  /** Largest `per_page` a client may ask for; default 100. */
  maxPerPage?: number
  /** Largest `page`; default 1,000,000 (with `maxPerPage` it keeps the offset a safe integer). */
  maxPage?: number
}

export interface Pagination {
  page: number
  perPage: number
  /** `limit ? offset ?` in SQL. */
  limit: number
  offset: number
}

const defaults = { perPage: 20, maxPerPage: 100, maxPage: 1_000_000 }

/** A count from the query string: digits only, from 1 to `max`; `fallback` when absent. */
function count(max: number, fallback: number) {
  // The bounds apply to the number the digits make, which JSON Schema cannot state of a string: the API description says them in words.
  const bounds = v.description<string, string>(`A whole number from 1 to ${String(max).replace(/\B(?=(\d{3})+(?!\d))/g, ',')} (default ${fallback}).`)
  return v.optional(v.pipe(v.string(), v.digits(), bounds, v.transform(Number), v.minValue(1), v.maxValue(max)), String(fallback))
}

export function paginationQuery(options: PaginationOptions = {}) {
  const { perPage, maxPerPage, maxPage } = { ...defaults, ...options }
  return v.pipe(
    v.object({ page: count(maxPage, 1), per_page: count(maxPerPage, perPage) }),
    v.transform(({ page, per_page }): Pagination => ({ page, perPage: per_page, limit: per_page, offset: (page - 1) * per_page })),
  )
}
