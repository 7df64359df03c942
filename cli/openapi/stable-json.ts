/**
 * JSON with every object's keys sorted, so a document built twice from the
 * same routes is the same bytes (arrays keep their order: it means something).
 */

/** A deep copy of `value` with object keys in sorted order. */
export function sortKeys<T>(value: T): T {
  if (Array.isArray(value)) return value.map(sortKeys) as T
  if (typeof value !== 'object' || value === null) return value
  const sorted: Record<string, unknown> = {}
  for (const key of Object.keys(value).sort(compareKeys)) sorted[key] = sortKeys((value as Record<string, unknown>)[key])
  return sorted as T
}

/** `JSON.stringify` of `sortKeys(value)`, two-space indented, with a final newline when `pretty`. */
export function stableStringify(value: unknown, pretty = false): string {
  return pretty ? `${JSON.stringify(sortKeys(value), null, 2)}\n` : JSON.stringify(sortKeys(value))
}

/** Code-unit order, the same on every machine (no locale). */
function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
