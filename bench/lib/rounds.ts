/** The items from `start` (taken modulo their count) to the end, then the rest: `rotated([a, b, c], 1)` is `[b, c, a]`. */
export function rotated<T>(items: readonly T[], start: number): T[] {
  if (items.length === 0) return []
  const offset = ((start % items.length) + items.length) % items.length
  return [...items.slice(offset), ...items.slice(0, offset)]
}
