/**
 * Example values from the API description's schemas, for the Postman
 * collection's request bodies, query strings and path variables: the
 * schema's own `example` or `default` first, then a value of its type that
 * passes its rules (lengths, bounds, formats, simple patterns).
 */
import { RULES_KEYWORD, type JsonSchema } from '../schemas/to-json-schema.ts'

const FORMATS: Record<string, string> = {
  email: 'user@example.com',
  'date-time': '2026-01-01T00:00:00.000Z',
  date: '2026-01-01',
  time: '12:00:00',
  uri: 'https://example.com',
  url: 'https://example.com',
  uuid: '00000000-0000-4000-8000-000000000000',
  ipv4: '127.0.0.1',
}

/**
 * Named checks an example satisfies as made here: visible text without NUL, an ISO timestamp from its format,
 * and a confirmation equal to the field it confirms (both the same example).
 */
const RULES_EXAMPLES_PASS = new Set(['visible', 'without_nul', 'timestamp', 'confirmed'])

/**
 * The fields of `schema` whose example may fail the route's validation (`lines[].sku`, '' for the whole value):
 * a named check the description cannot state (an app's `defineRule`, `namedCheck`: `x-rules`), or a pattern
 * too complex to sample. Empty when the example passes every rule the description states.
 */
export function unsureExampleFields(schema: JsonSchema, components: Record<string, JsonSchema>, field = '', depth = 0): Array<{ field: string; reason: string }> {
  if (depth > 8) return []
  const next = (child: unknown, at: string) => unsureExampleFields((child ?? {}) as JsonSchema, components, at, depth + 1)
  if (typeof schema.$ref === 'string') return next(components[schema.$ref.split('/').at(-1)!], field)
  // Given by the schema's author: exampleOf sends it as it is.
  if (schema.example !== undefined || schema.default !== undefined || Array.isArray(schema.enum)) return []
  const unsure: Array<{ field: string; reason: string }> = []
  const rules = Array.isArray(schema[RULES_KEYWORD]) ? (schema[RULES_KEYWORD] as unknown[]).map(String).filter((rule) => !RULES_EXAMPLES_PASS.has(rule)) : []
  if (rules.length > 0) unsure.push({ field, reason: `rule ${rules.join(', ')}` })
  if (Array.isArray(schema.allOf)) for (const part of schema.allOf) unsure.push(...next(part, field))
  const options = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined
  if (options !== undefined && options.length > 0) unsure.push(...next(options[0], field))
  if (schema.type === 'object') {
    for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>)) unsure.push(...next(property, field === '' ? name : `${field}.${name}`))
  } else if (schema.type === 'array') {
    unsure.push(...next(schema.items, `${field}[]`))
  } else if (schema.type === 'string' && typeof schema.pattern === 'string' && !(typeof schema.format === 'string' && FORMATS[schema.format] !== undefined)) {
    if (sampleOf(schema.pattern) === undefined) unsure.push({ field, reason: `pattern ${schema.pattern}` })
  }
  return unsure
}

/** An example of `schema`; `$ref`s are read from `components` (`#/components/schemas/<Name>`). */
export function exampleOf(schema: JsonSchema, components: Record<string, JsonSchema>, depth = 0): unknown {
  if (depth > 8) return null
  const next = (child: unknown) => exampleOf((child ?? {}) as JsonSchema, components, depth + 1)
  if (typeof schema.$ref === 'string') return next(components[schema.$ref.split('/').at(-1)!])
  if (schema.example !== undefined) return schema.example
  if (schema.default !== undefined) return schema.default
  if (Array.isArray(schema.enum)) return schema.enum.find((value) => value !== null) ?? null
  if (Array.isArray(schema.allOf)) {
    const parts = (schema.allOf as JsonSchema[]).map(next)
    return parts.every(isPlainObject) ? Object.assign({}, ...parts) : parts[0]
  }
  const options = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined
  if (options !== undefined && options.length > 0) return next({ ...schema, anyOf: undefined, oneOf: undefined, ...options[0] })
  switch (schema.type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, JsonSchema>
      return Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, next(property)]))
    }
    case 'array': {
      const count = Math.max(1, typeof schema.minItems === 'number' ? schema.minItems : 1)
      return Array.from({ length: count }, () => next(schema.items))
    }
    case 'integer':
    case 'number':
      return numberExample(schema)
    case 'boolean':
      return true
    case 'string':
      return stringExample(schema)
    default:
      return schema.nullable === true ? null : 'example'
  }
}

function numberExample(schema: JsonSchema): number {
  const minimum = typeof schema.minimum === 'number' ? schema.minimum : undefined
  const maximum = typeof schema.maximum === 'number' ? schema.maximum : undefined
  let value = minimum ?? 1
  if (maximum !== undefined && value > maximum) value = maximum
  return schema.type === 'integer' ? Math.ceil(value) : value
}

function stringExample(schema: JsonSchema): string {
  if (typeof schema.format === 'string' && FORMATS[schema.format] !== undefined) return FORMATS[schema.format]!
  if (typeof schema.pattern === 'string') {
    const sample = sampleOf(schema.pattern)
    if (sample !== undefined) return sample
  }
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity
  return 'example'.padEnd(min, 'x').slice(0, Math.max(min, Math.min(max, 'example'.length)))
}

/**
 * A string the pattern matches, for the simple patterns routes use
 * (`^(?:\d+)$`, `\d{4}`, `[a-z0-9-]+`): literals, classes, `\d \w \s`,
 * groups, alternatives (the first) and quantifiers (the fewest, at least
 * one). Undefined when the pattern is beyond that or the sample fails it.
 */
export function sampleOf(pattern: string): string | undefined {
  let regex: RegExp
  try {
    regex = new RegExp(pattern, 'u')
  } catch {
    return undefined
  }
  const sample = sampleSequence(pattern, { at: 0 })
  return sample !== undefined && regex.test(sample) ? sample : undefined
}

const CLASS_SAMPLES: Record<string, string> = { d: '1', w: 'a', s: ' ' }

function sampleSequence(pattern: string, cursor: { at: number }): string | undefined {
  let out = ''
  let last = ''
  while (cursor.at < pattern.length) {
    const char = pattern[cursor.at]!
    if (char === ')') break
    if (char === '|') {
      // The first alternative is enough: skip the rest of this group.
      let depth = 0
      while (cursor.at < pattern.length && !(pattern[cursor.at] === ')' && depth === 0)) {
        if (pattern[cursor.at] === '\\') cursor.at++
        else if (pattern[cursor.at] === '(') depth++
        else if (pattern[cursor.at] === ')') depth--
        cursor.at++
      }
      break
    }
    cursor.at++
    let piece: string | undefined
    if (char === '^' || char === '$') continue
    else if (char === '\\') {
      const escaped = pattern[cursor.at++]
      if (escaped === undefined) return undefined
      piece = CLASS_SAMPLES[escaped] ?? (/[A-Za-z0-9]/.test(escaped) ? undefined : escaped)
    } else if (char === '[') {
      const end = pattern.indexOf(']', cursor.at + 1)
      if (end === -1 || pattern[cursor.at] === '^') return undefined
      const body = pattern.slice(cursor.at, end)
      cursor.at = end + 1
      piece = body.startsWith('\\') ? CLASS_SAMPLES[body[1]!] : body[0] === '-' ? '-' : body[0]
    } else if (char === '(') {
      if (pattern.startsWith('?:', cursor.at)) cursor.at += 2
      else if (pattern[cursor.at] === '?') return undefined
      piece = sampleSequence(pattern, cursor)
      if (pattern[cursor.at] !== ')') return undefined
      cursor.at++
    } else if (char === '.') piece = 'a'
    else if ('*+?{'.includes(char)) {
      // A quantifier after the last piece: the fewest repetitions, at least one.
      if (char === '{') {
        const close = pattern.indexOf('}', cursor.at)
        const count = Number(pattern.slice(cursor.at, close).split(',')[0])
        cursor.at = close + 1
        if (!Number.isInteger(count)) return undefined
        out = out.slice(0, out.length - last.length) + last.repeat(Math.max(1, count))
      }
      if (pattern[cursor.at] === '?') cursor.at++
      continue
    } else piece = char
    if (piece === undefined) return undefined
    last = piece
    out += piece
  }
  return out
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
