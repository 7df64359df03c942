/**
 * A route's declared input (`.body(schema)`, `.query(schema)`), validated
 * after its middleware and before its handler: the query string and the body
 * are checked together, so one 422 lists every field that failed.
 */
import { rawBodyOf, setValidatedInput, validationMessageOf, type Context } from '../context/context.ts'
import { ValidationError, type FieldErrors } from '../http/http-error.ts'
import type { Handler, RouteSchemas } from '../router/types.ts'
import { checkWith } from './validate.ts'

/** The handler, preceded by the validation of what `schemas` declares (the handler itself when nothing is declared). */
export function withInputValidation(schemas: RouteSchemas, handler: Handler): Handler {
  const { body, query } = schemas
  if (body === undefined && query === undefined) return handler
  return async function validateInput(c: Context) {
    const format = validationMessageOf(c)
    const validated: { body?: unknown; query?: unknown } = {}
    // Made on a failure only; own properties (a field may be named `__proto__` or `constructor`), the query's first.
    let errors: Map<string, string[]> | undefined
    if (query !== undefined) {
      const result = await checkWith(query, queryObject(c.url.searchParams), 'query', format)
      if (result.ok) validated.query = result.value
      else errors = collect(errors, result.errors)
    }
    if (body !== undefined) {
      const result = await checkWith(body, await rawBodyOf(c), 'body', format)
      if (result.ok) validated.body = result.value
      else errors = collect(errors, result.errors)
    }
    // Failed is failed, whatever the errors say: the handler never sees input its schema refused.
    if (errors !== undefined) throw new ValidationError(Object.fromEntries(errors))
    setValidatedInput(c, validated)
    return handler(c)
  }
}

/** Adds `found` to `errors`; a name that failed in both the query and the body keeps both messages, the query's first. */
function collect(errors: Map<string, string[]> = new Map(), found: FieldErrors): Map<string, string[]> {
  for (const [field, messages] of Object.entries(found)) {
    const earlier = errors.get(field)
    errors.set(field, earlier === undefined ? messages : [...earlier, ...messages.filter((message) => !earlier.includes(message))])
  }
  return errors
}

/** `?tag=a&tag=b&page=2` => `{ tag: ['a', 'b'], page: '2' }`: a key given once is a string, more often a list. */
export function queryObject(params: URLSearchParams): Record<string, string | string[]> {
  // A Map, then own properties: a key such as `__proto__` is a field like any other.
  const query = new Map<string, string | string[]>()
  params.forEach((value, key) => {
    const seen = query.get(key)
    query.set(key, seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value])
  })
  return Object.fromEntries(query)
}
