/**
 * Pagination parameters of a list route (`?page=2&per_page=50`), validated:
 * whole numbers in range, else 422 with per-field messages, so that
 * `?page=1e300` or `?page=-1` never reaches SQL (it was a 500, SQLITE_MISMATCH).
 * A Standard Schema, so a route can declare it; `paginate` runs it in a handler.
 *
 * @example
 * const { limit, offset, page, perPage } = paginate(c.query, { perPage: 20 })
 * await c.db.execute('select * from posts order by id desc limit ? offset ?', [limit, offset])
 */
import type { StandardSchemaV1 } from '@standard-schema/spec'
import { ValidationError } from '../http/http-error.ts'
import { toFieldErrors } from './validate.ts'

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

type QueryInput = URLSearchParams | Record<string, unknown>

const defaults = { perPage: 20, maxPerPage: 100, maxPage: 1_000_000 }

export function paginationQuery(options: PaginationOptions = {}): StandardSchemaV1<QueryInput, Pagination> {
  const { perPage: fallback, maxPerPage, maxPage } = { ...defaults, ...options }
  return {
    '~standard': {
      version: 1,
      vendor: 'svc',
      validate(input) {
        const issues: StandardSchemaV1.Issue[] = []
        const read = (field: string, fallbackValue: number, max: number): number => {
          const raw = input instanceof URLSearchParams ? input.get(field) : (input as Record<string, unknown> | null)?.[field]
          if (raw === undefined || raw === null || raw === '') return fallbackValue
          const text = String(raw)
          const value = /^\d{1,16}$/.test(text) ? Number(text) : Number.NaN
          if (!(value >= 1 && value <= max)) {
            issues.push({ message: `The ${field.replaceAll('_', ' ')} field must be a whole number between 1 and ${max}.`, path: [field] })
          }
          return value
        }
        const page = read('page', 1, maxPage)
        const perPage = read('per_page', fallback, maxPerPage)
        if (issues.length > 0) return { issues }
        return { value: { page, perPage, limit: perPage, offset: (page - 1) * perPage } }
      },
    },
  }
}

/** The pagination of a request's query (`c.query`), or 422. */
export function paginate(query: QueryInput, options: PaginationOptions = {}): Pagination {
  const result = paginationQuery(options)['~standard'].validate(query) as StandardSchemaV1.Result<Pagination>
  if (result.issues !== undefined) throw new ValidationError(toFieldErrors(result.issues))
  return result.value
}
