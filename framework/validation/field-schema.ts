/**
 * The schema a valibot schema declares for one field path, for the words of
 * a message that the issue alone cannot give: a `v.pipe(v.number(), v.integer())`
 * field given `"a"` fails its `number` check first, and its issue never names
 * the integer action that follows.
 */

interface SchemaShape {
  type?: unknown
  entries?: Record<string, unknown>
  item?: unknown
  items?: readonly unknown[]
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
