/**
 * The schema a valibot schema declares for one field path, for the words of
 * a message that the issue alone cannot give: a `v.pipe(v.number(), v.integer())`
 * field given `"a"` fails its `number` check first, and its issue never names
 * the integer action that follows.
 */

interface SchemaShape {
  kind?: unknown
  type?: unknown
  entries?: Record<string, unknown>
  item?: unknown
  items?: readonly unknown[]
  options?: readonly unknown[]
  value?: unknown
  wrapped?: unknown
  pipe?: readonly unknown[]
}

/** valibot's schemas that wrap one other (`wrapped`) and only widen or narrow what it takes. */
export const WRAPPER_TYPES: ReadonlySet<string> = new Set(['optional', 'nullable', 'nullish', 'exact_optional', 'non_optional', 'non_nullable', 'non_nullish', 'undefinedable'])

/** The schema at `path` (object keys, list indexes), through optional/nullable wrappers; undefined where the walk cannot follow (unions, lazy). */
export function schemaAtPath(schema: unknown, path: readonly string[]): unknown {
  let current: unknown = schema
  for (const key of path) {
    const shape = unwrapped(current) as SchemaShape | undefined
    if (shape === undefined) return undefined
    if (typeof shape.entries === 'object' && shape.entries !== null) current = Object.hasOwn(shape.entries, key) ? shape.entries[key] : undefined
    else if (shape.type === 'array') current = shape.item
    else if (shape.type === 'tuple' && Array.isArray(shape.items)) current = shape.items[Number(key)]
    else if (shape.type === 'record') current = shape.value
    else return undefined
  }
  return current
}

/** True when the schema's pipe (inside its optional/nullable wrappers) has the action `type` (`integer`). */
export function pipeHas(schema: unknown, type: string): boolean {
  const pipe = (unwrapped(schema) as SchemaShape | undefined)?.pipe
  return Array.isArray(pipe) && pipe.some((action) => (action as SchemaShape | null)?.type === type)
}

function unwrapped(schema: unknown): object | undefined {
  let current = schema
  while (typeof current === 'object' && current !== null && WRAPPER_TYPES.has(String((current as SchemaShape).type))) {
    current = (current as SchemaShape).wrapped
  }
  return typeof current === 'object' && current !== null ? current : undefined
}

const OBJECT_TYPES = new Set(['object', 'loose_object', 'strict_object', 'object_with_rest', 'record'])

/**
 * The paths where the input holds a list and the schema an object or record (`[]` for the input as a whole).
 * valibot's `object` takes a list as an object (`typeof [] === 'object'`): `{ "address": [] }` read as an
 * address whose fields are missing, and one whose fields are all optional passed as `{}` (a record, as
 * `{ "0": ... }`). Followed through objects, records, lists, tuples and optional/nullable wrappers, as far as
 * the input goes, and into each part of an intersection; not into unions.
 */
export function listsForObjects(schema: unknown, input: unknown, path: readonly string[] = [], found: string[][] = []): string[][] {
  if (typeof input !== 'object' || input === null) return found
  const shape = unwrapped(schema) as SchemaShape | undefined
  // valibot's schemas only: another library's `object` refuses a list itself.
  if (shape === undefined || shape.kind !== 'schema') return found
  const type = String(shape.type)
  if (type === 'intersect' && Array.isArray(shape.options)) {
    // Each object of an intersection reads the same value.
    for (const option of shape.options) listsForObjects(option, input, path, found)
  } else if (OBJECT_TYPES.has(type)) {
    if (Array.isArray(input)) {
      found.push([...path])
      return found
    }
    const record = input as Record<string, unknown>
    if (type === 'record') {
      for (const key of Object.keys(record)) listsForObjects(shape.value, record[key], [...path, key], found)
    } else if (typeof shape.entries === 'object' && shape.entries !== null) {
      for (const key of Object.keys(shape.entries)) {
        if (Object.hasOwn(record, key)) listsForObjects(shape.entries[key], record[key], [...path, key], found)
      }
    }
  } else if (Array.isArray(input) && (type === 'array' || type === 'tuple')) {
    input.forEach((item, index) => {
      // Only an object or list can be one; a long list of numbers costs one test each.
      if (typeof item !== 'object' || item === null) return
      const itemSchema = type === 'array' ? shape.item : shape.items?.[index]
      if (itemSchema !== undefined) listsForObjects(itemSchema, item, [...path, String(index)], found)
    })
  }
  return found
}
