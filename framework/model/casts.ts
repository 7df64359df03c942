/**
 * How a model converts a column between what SQLite stores and what the app
 * reads: SQLite has no boolean, date or JSON type, so `true` is stored as 1, a
 * date as ISO 8601 text, a JSON value as its text.
 */

/** What a column holds, for the app. */
export type Cast = 'string' | 'number' | 'integer' | 'boolean' | 'json' | 'date'

/** A stored value as the app reads it. `null` stays `null`. */
export function castFromStorage(cast: Cast, value: unknown): unknown {
  if (value === null || value === undefined) return null
  switch (cast) {
    case 'string':
      return String(value)
    case 'number':
      return Number(value)
    case 'integer':
      return Math.trunc(Number(value))
    case 'boolean':
      return value === 1 || value === '1' || value === true || value === 'true'
    case 'json':
      return typeof value === 'string' ? (JSON.parse(value) as unknown) : value
    case 'date':
      return new Date(typeof value === 'number' ? value : String(value))
  }
}

/** A value as SQLite stores it. `undefined` is `null`. */
export function castToStorage(cast: Cast | undefined, value: unknown): unknown {
  if (value === null || value === undefined) return null
  switch (cast) {
    case 'boolean':
      return value ? 1 : 0
    case 'json':
      return JSON.stringify(value)
    case 'date':
      return value instanceof Date ? value.toISOString() : value
    default:
      return typeof value === 'boolean' ? (value ? 1 : 0) : value
  }
}
