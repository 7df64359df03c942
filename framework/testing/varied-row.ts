/**
 * Rows that differ from a valid one and that its schema still accepts: the
 * tests `svc make:crud` writes create several rows, and a unique index the app
 * adds would refuse the second one if they were equal. Appending ` 2` to every
 * string did that until the app tightened its request (`v.url()`, `v.email()`,
 * `v.uuid()`, a `v.regex`, a `v.maxLength`): then every such row was a 422.
 * Here each column tries a few spellings, in order, and keeps the first one
 * the schema accepts, so the tests follow the schema the app has today.
 */
import type { StandardSchemaV1 } from '@standard-schema/spec'

/**
 * `row` with each of `columns` changed by `n` (1, 2, 3... give different
 * rows), as the schema accepts: a string gets ` n` appended, or `-n`, `+n`
 * before an email's `@`, `n` in place of its last characters (a UUID, a
 * fixed length), letters...; a number `+ n`, or `- n`. A column no spelling
 * fits keeps its value.
 *
 * @example
 * const row = await variedRow(ProductRequest, valid, 2, ['name', 'price'])
 */
export async function variedRow<Row extends Record<string, unknown>>(schema: StandardSchemaV1, row: Row, n: number, columns: ReadonlyArray<keyof Row & string>): Promise<Row> {
  const varied: Record<string, unknown> = { ...row }
  for (const column of columns) {
    for (const candidate of variationsOf(row[column], n)) {
      if (await accepts(schema, { ...varied, [column]: candidate }, column)) {
        varied[column] = candidate
        break
      }
    }
  }
  return varied as Row
}

/** The spellings tried for a value, most readable first; none equals the value. */
export function variationsOf(value: unknown, n: number): unknown[] {
  if (typeof value === 'number') return [value + n, value - n, value + n / 100, value - n / 100].filter((candidate) => candidate !== value)
  if (typeof value !== 'string') return []
  const digits = String(n)
  const letters = lettersOf(n)
  const at = value.lastIndexOf('@')
  const email = at > 0 ? [`${value.slice(0, at)}+${digits}${value.slice(at)}`, `${value.slice(0, at)}${digits}${value.slice(at)}`, `${value.slice(0, at)}${letters}${value.slice(at)}`] : []
  const candidates = [
    `${value} ${digits}`,
    ...email,
    `${value}-${digits}`,
    `${value}${digits}`,
    `${value}_${digits}`,
    `${value}/${digits}`,
    // A code ending in digits (`ABC-123`): those digits plus n, as wide.
    ...trailingDigitsPlus(value, n),
    // A fixed length or format (a UUID's hex digits, a code, an upper bound): the last characters replaced.
    `${value.slice(0, -digits.length)}${digits}`,
    `${value.slice(0, -(digits.length + 1))} ${digits}`,
    `${value}${letters}`,
    `${value}-${letters}`,
    `${value.slice(0, -letters.length)}${letters}`,
    `${value.slice(0, -letters.length)}${letters.toUpperCase()}`,
  ]
  return [...new Set(candidates)].filter((candidate) => candidate !== value)
}

function trailingDigitsPlus(value: string, n: number): string[] {
  const match = /(\d+)$/.exec(value)
  if (match === null) return []
  const width = match[1]!.length
  const sum = String((Number(match[1]) + n) % 10 ** width).padStart(width, '0')
  return [`${value.slice(0, -width)}${sum}`]
}

/** 1 → a, 26 → z, 27 → aa: a suffix for columns that take no digits. */
function lettersOf(n: number): string {
  let rest = Math.max(1, Math.trunc(Math.abs(n)))
  let letters = ''
  while (rest > 0) {
    rest -= 1
    letters = String.fromCharCode(97 + (rest % 26)) + letters
    rest = Math.trunc(rest / 26)
  }
  return letters
}

/** Whether the schema has nothing to say about `column` in `row` (other columns' issues are theirs). */
async function accepts(schema: StandardSchemaV1, row: Record<string, unknown>, column: string): Promise<boolean> {
  const result = await schema['~standard'].validate(row)
  if (result.issues === undefined) return true
  return !result.issues.some((issue) => {
    const first = issue.path?.[0]
    return (typeof first === 'object' && first !== null ? first.key : first) === column
  })
}
