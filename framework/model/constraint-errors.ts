/**
 * A model's write refused by a constraint of its table, as what it is to a
 * client: a unique index hit by a duplicate value is a 422 naming the field
 * (as registration's "The email has already been taken."), a foreign key
 * naming no row (or a row still named by others) a 409. Neither is the
 * server's fault, so neither may be a 500. The driver's error stays the cause.
 */
import type { Database } from '../database/database.ts'
import { HttpError, ValidationError } from '../http/http-error.ts'

/**
 * The error a write of `table` should answer with, or `error` itself.
 * SQLite, libSQL and D1 all word it `UNIQUE constraint failed: <table>.<column>[, <table>.<column>]`
 * and `FOREIGN KEY constraint failed`.
 */
export function asConstraintError(error: unknown, model: { name: string; table: string }, write: 'create' | 'update' | 'delete'): unknown {
  const message = messageOf(error)
  const unique = /UNIQUE constraint failed: ([^\s,:]+\.[^\s,:]+(?:, [^\s,:]+\.[^\s,:]+)*)/i.exec(message)
  if (unique) {
    const columns = unique[1]!.split(',').map((name) => name.trim())
    const prefix = `${model.table}.`
    // Another table's index (a trigger's write) is not this request's field.
    if (!columns.every((name) => name.startsWith(prefix))) return error
    const names = columns.map((name) => name.slice(prefix.length))
    const label = names.map((name) => name.replaceAll('_', ' ')).join(' and ')
    const taken = `The ${label} ${names.length === 1 ? 'has' : 'have'} already been taken.`
    // No request is at hand here: the answer words it again in the request's language (`validation.unique`).
    const failures = names.map((field) => ({ field, rule: 'unique', label }))
    return new ValidationError(Object.fromEntries(names.map((name) => [name, [taken]])), undefined, { cause: error, failures })
  }
  if (/FOREIGN KEY constraint failed/i.test(message)) {
    const text = write === 'delete' ? `${model.name} is still referenced by other rows` : `${model.name} refers to a row that does not exist`
    return new HttpError(409, text, { cause: error })
  }
  return error
}

function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  return error.cause instanceof Error ? `${error.message} ${error.cause.message}` : error.message
}

/**
 * Which written value a foreign key found no row for, in words
 * (`project_id 999 names no row of projects`), read from the table's own
 * foreign keys: SQLite says only `FOREIGN KEY constraint failed`, which for a
 * table with two keys leaves the client guessing. Undefined when none can be
 * named (a key on the parent's implicit primary key, a driver without
 * `pragma_foreign_key_list`): the message then stays the general one.
 */
export async function missingReference(db: Database, table: string, values: ReadonlyArray<readonly [string, unknown]>): Promise<string | undefined> {
  try {
    const keys = await db.all<{ from: string; table: string; to: string | null }>('select "from", "table", "to" from pragma_foreign_key_list(?)', [table])
    for (const key of keys) {
      const written = values.find(([column]) => column === key.from)
      if (written === undefined || written[1] === null || key.to === null) continue
      const found = await db.first(`select 1 from ${quoted(key.table)} where ${quoted(key.to)} = ? limit 1`, [written[1] as string | number])
      if (found === undefined) return `${key.from} ${String(written[1])} names no row of ${key.table}`
    }
  } catch {
    // Naming the column is a courtesy: the general message stands.
  }
  return undefined
}

function quoted(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`
}
