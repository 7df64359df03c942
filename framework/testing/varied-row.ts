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
 * Each value is one the schema gives back unchanged where it can be: for a
 * transforming schema (`v.toLowerCase()`, `v.trim()`) the spelling as the
 * schema writes it (`product example 2`, not `Product example 2`), so what a
 * test sends is what the app stores and answers.
 *
 * @example
 * const row = await variedRow(ProductRequest, valid, 2, ['name', 'price'])
 */
export async function variedRow<Row extends Record<string, unknown>>(schema: StandardSchemaV1, row: Row, n: number, columns: ReadonlyArray<keyof Row & string>): Promise<Row> {
  const varied: Record<string, unknown> = { ...row }
  for (const column of columns) {
    const own = await verdict(schema, row, column)
    const unchanged = own.output === undefined ? row[column] : own.output.value
    // The first spelling the schema accepts though it rewrites it: kept when no spelling is one it keeps.
    let rewritten: { value: unknown } | undefined
    let chosen: { value: unknown } | undefined
    for (const candidate of variationsOf(row[column], n)) {
      const tried = await verdict(schema, { ...varied, [column]: candidate }, column)
      if (!tried.accepted) continue
      // Another column's issue leaves the output unknown: the schema accepting this column is all that can be told.
      if (tried.output === undefined || Object.is(tried.output.value, candidate)) {
        chosen = { value: candidate }
        break
      }
      // A transforming schema: its own spelling, if it keeps that one as it is and it still differs from the row's.
      const written = tried.output.value
      if (!Object.is(written, unchanged)) {
        const again = await verdict(schema, { ...varied, [column]: written }, column)
        if (again.output !== undefined && Object.is(again.output.value, written)) {
          chosen = { value: written }
          break
        }
      }
      rewritten ??= { value: candidate }
    }
    const picked = chosen ?? rewritten
    if (picked !== undefined) varied[column] = picked.value
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

/**
 * Whether the schema has nothing to say about `column` in `row` (other columns' issues are theirs), and,
 * when it accepts the whole row, what it makes of that column.
 */
async function verdict(schema: StandardSchemaV1, row: Record<string, unknown>, column: string): Promise<{ accepted: boolean; output?: { value: unknown } }> {
  const result = await schema['~standard'].validate(row)
  if (result.issues === undefined) {
    const output = result.value
    return { accepted: true, output: typeof output === 'object' && output !== null ? { value: (output as Record<string, unknown>)[column] } : undefined }
  }
  const accepted = !result.issues.some((issue) => {
    const first = issue.path?.[0]
    return (typeof first === 'object' && first !== null ? first.key : first) === column
  })
  return { accepted }
}
