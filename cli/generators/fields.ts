/**
 * `--fields=name:string,price:number,description:text?`: the columns of a
 * generated table, and everything derived from them (the migration's column,
 * the model's type, the request schema, a sample value).
 */
import { closestNames } from '../command/suggest.ts'
import { CliError } from '../output/cli-error.ts'
import { deriveNames, singularOfTable, type Names } from './names.ts'

export const FIELD_TYPES = ['string', 'text', 'integer', 'number', 'boolean', 'date', 'references'] as const
export type FieldType = (typeof FIELD_TYPES)[number]

export interface Field {
  /** The column: `price`, `published_at`. */
  name: string
  type: FieldType
  /** Written `name:type?`: may be absent or null. */
  optional: boolean
  /**
   * A `references` field's parent table: the one written after the type (`author_id:references:users`), else the
   * column's name without `_id`, in the plural (`project_id` → `projects`).
   */
  table?: string
}

/** What `make:crud` writes when no `--fields` are given. */
export const DEFAULT_CRUD_FIELDS = 'name:string,description:text?'

const RESERVED_COLUMNS = new Set(['id', 'created_at', 'updated_at'])

/**
 * Names a column cannot have because generated code uses it as a property
 * of plain objects (`casts: { constructor: 'boolean' }`): whatever
 * `Object.prototype` has, and `prototype`. SQL keywords are fine: every
 * generated statement quotes its identifiers (`sqlName`).
 */
export function isObjectMember(name: string): boolean {
  return name in Object.prototype || name === 'prototype'
}

export function parseFields(spec: string | undefined): Field[] {
  if (spec === undefined || spec.trim() === '') return []
  const fields: Field[] = []
  for (const part of spec.split(',').map((text) => text.trim()).filter((text) => text !== '')) {
    // A third part is a references field's table (Phoenix's author_id:references:users), nothing else's.
    const match = /^([a-z][a-z0-9_]*):([a-z]+)(?::([a-z][a-z0-9_]*))?(\?)?$/.exec(part)
    const type = match?.[2] as FieldType | undefined
    if (match === null || !FIELD_TYPES.includes(type!) || (match[3] !== undefined && type !== 'references')) {
      throw new CliError('E_BAD_FIELDS', `--fields: "${part}" is not <column>:<type>${whatIsWrong(part)}`, {
        hint: `columns in snake_case; types: ${FIELD_TYPES.join(', ')}; a trailing ? makes one optional (description:text?); a references column may name its table (author_id:references:users)`,
      })
    }
    const name = match[1]!
    if (RESERVED_COLUMNS.has(name)) throw new CliError('E_BAD_FIELDS', `--fields: ${name} is added to every table already`)
    if (isObjectMember(name)) {
      throw new CliError('E_BAD_FIELDS', `--fields: ${name} is a property every JavaScript object has, not a column name generated code can use`, {
        hint: `name the column after what it holds (${name}_name, ${name}_type...)`,
      })
    }
    if (fields.some((field) => field.name === name)) throw new CliError('E_BAD_FIELDS', `--fields: ${name} is given twice`)
    const table = match[3]
    if (type === 'references' && !/^[a-z][a-z0-9_]*_id$/.test(name)) {
      // The table is read from the column's name (project_id: projects), as Rails' project:references names its column.
      throw new CliError('E_BAD_FIELDS', `--fields: "${part}": a references column is named <parent>_id`, {
        hint: `${name.replace(/_id$/, '')}_id:references${table === undefined ? '' : `:${table}`}${match[4] ?? ''}`,
      })
    }
    const optional = match[4] === '?'
    if (type !== 'references') fields.push({ name, type: type!, optional })
    else fields.push({ name, type, optional, table: table ?? defaultParentTable(name) })
  }
  return fields
}

/** Which half of a refused `name:type` is wrong, and the likely fix: ` (no type "strng"; did you mean string?)`. */
function whatIsWrong(part: string): string {
  const [column = '', type = '', ...rest] = part.replace(/\?$/, '').split(':')
  if (!part.includes(':')) return ''
  if (type === 'references?' && rest.length === 1) return ` (the ? goes last: ${column}:references:${rest[0]}?)`
  if (type === 'references' && rest.length === 1 && /^[a-z][a-z0-9_]*$/.test(column)) {
    const table = rest[0]!.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/[^A-Za-z0-9_]+/g, '_').toLowerCase()
    return ` (the table "${rest[0]}" is not snake_case${/^[a-z][a-z0-9_]*$/.test(table) ? `: ${column}:references:${table}` : ''})`
  }
  if (rest.length > 0) return modifierProblem(column, type, rest)
  if (!/^[a-z][a-z0-9_]*$/.test(column)) {
    const snake = column.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/[^A-Za-z0-9_]+/g, '_').toLowerCase()
    return /^[a-z][a-z0-9_]*$/.test(snake) ? ` (the column "${column}" is not snake_case: ${snake})` : ` (the column "${column}" is not snake_case)`
  }
  if (FIELD_TYPES.includes(type as FieldType)) return ''
  const near = closestNames(type.toLowerCase(), FIELD_TYPES, 1)
  return near.length > 0 ? ` (no type "${type}"; did you mean ${near[0]}?)` : ` (no type "${type}")`
}

/**
 * A modifier after the type, as other generators take them (`sku:string:unique`,
 * `note:text:nullable`): the one svc takes is a trailing `?`; an index goes in the migration.
 */
function modifierProblem(column: string, type: string, modifiers: string[]): string {
  if (!/^[a-z][a-z0-9_]*$/.test(column) || !FIELD_TYPES.includes(type as FieldType)) return ''
  const named = modifiers.join(':')
  if (modifiers.length === 1 && (named === 'nullable' || named === 'optional')) return ` (no modifier "${named}": write ${column}:${type}?)`
  // A foreign key to a table of another name is a references field's: author_id:integer:users.
  if (modifiers.length === 1 && type === 'integer' && column.endsWith('_id')) return ` (a table after the type is a references field's: ${column}:references:${named})`
  return ` (no modifier "${named}": a trailing ? (${column}:${type}?) is the one --fields takes; add an index or a default in the migration it writes)`
}

/** What the model's row type says after a `date` field (a string to TypeScript), so that generators reading the model know it. */
export const DATE_MARK = '// ISO 8601 date'

/**
 * What the model's row type says after a `text` or an `integer` field, which TypeScript types as `string` and `number`
 * like `string` and `number` fields: generators reading the model back write then what `--fields` would have
 * (a text's rules, not a one-line string's 255 characters; a factory's `n`, not `n * 10`).
 */
export const TEXT_MARK = '// text'
export const INTEGER_MARK = '// integer'

/** What the model's row type says after a `references` field (`project_id: number // references projects`), so that generators reading the model know it. */
export const REFERENCES_MARK = '// references'

/** The table `<parent>_id:references` names when it names none: `project_id` → `projects`. */
export function defaultParentTable(column: string): string {
  return deriveNames(column.replace(/_id$/, '')).table
}

/**
 * The parent a `references` field names: `project_id` → `Project`, table `projects`; `author_id:references:users` →
 * `User`, table `users` (its model, factory and words come from the table's singular).
 */
export function parentOf(field: Field): Names {
  if (field.table === undefined) {
    const parent = deriveNames(field.name.replace(/_id$/, ''))
    return { ...parent, base: parent.singular }
  }
  const parent = deriveNames(singularOfTable(field.table))
  return { ...parent, base: parent.singular, table: field.table }
}

/** The field as `--fields` takes it: `label:string`, `note:text?`, `author_id:references:users` (the table only when not the column's own). */
export function fieldSpec(field: Field): string {
  const table = field.type === 'references' && field.table !== defaultParentTable(field.name) ? `:${field.table}` : ''
  return `${field.name}:${field.type}${table}${field.optional ? '?' : ''}`
}

/** A whole-number column that looks like a foreign key (`project_id:integer`): it holds any number, not a row of the parent. */
export function looksLikeReference(field: Field): boolean {
  return field.type === 'integer' && /^[a-z][a-z0-9_]*_id$/.test(field.name)
}

/** The TypeScript type of the stored value. */
export function tsType(field: Field): string {
  const base = field.type === 'integer' || field.type === 'number' || field.type === 'references' ? 'number' : field.type === 'boolean' ? 'boolean' : 'string'
  return field.optional ? `${base} | null` : base
}

/** An identifier (table, column) quoted for SQL: `"order"`, so that keywords (order, group, values) are names too. */
export function sqlName(name: string): string {
  return `"${name.replaceAll('"', '""')}"`
}

/** The column in `create table`. */
export function columnSql(field: Field): string {
  const type = field.type === 'integer' || field.type === 'boolean' || field.type === 'references' ? 'integer' : field.type === 'number' ? 'real' : 'text'
  // No `on delete`: deleting a parent still named is refused (the model answers 409), as Laravel's constrained() does.
  const references = field.type === 'references' ? ` references ${sqlName(parentOf(field).table)} (${sqlName('id')})` : ''
  return `${sqlName(field.name)} ${type}${field.optional ? '' : ' not null'}${references}`
}

/**
 * svc's text rules a request schema calls: lengths in characters (`maxChars`), a one-line string refuses control and invisible characters
 * (`visibleText`, as the auth fields do), a text refuses NUL (`withoutNul`: libSQL reads text back cut at a NUL),
 * a date is kept in one spelling, UTC (`utcTimestamp`: the column then sorts in time order).
 */
export function requestRules(fields: readonly Field[]): string[] {
  return [
    // Lengths in characters (code points), as the API description's maxLength counts them, not UTF-16 units.
    ...(fields.some((field) => field.type === 'string' || field.type === 'text') ? ['maxChars'] : []),
    ...(fields.some((field) => field.type === 'string') ? ['visibleText'] : []),
    ...(fields.some((field) => field.type === 'text') ? ['withoutNul'] : []),
    ...(fields.some((field) => field.type === 'date') ? ['utcTimestamp'] : []),
  ]
}

/** The valibot schema of the field in a request body. */
export function requestSchema(field: Field): string {
  const inner = {
    string: field.optional ? 'v.pipe(v.string(), v.trim(), visibleText(), maxChars(255))' : 'v.pipe(v.string(), v.trim(), v.nonEmpty(), visibleText(), maxChars(255))',
    text: 'v.pipe(v.string(), withoutNul(), maxChars(65535))',
    // Beyond the safe range JSON's number is already rounded, and libSQL cannot read the stored integer back (the list would fail).
    integer: 'v.pipe(v.number(), v.integer(), v.minValue(Number.MIN_SAFE_INTEGER), v.maxValue(Number.MAX_SAFE_INTEGER))',
    number: 'v.number()',
    boolean: 'v.boolean()',
    date: 'utcTimestamp()',
    // An id: a row that does not exist is the database's to say (the model answers 409 naming the column and value).
    references: 'v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(Number.MAX_SAFE_INTEGER))',
  }[field.type]
  // Absent is null, not "keep": PUT is a full replacement, so a field left out of it is cleared, as on create.
  return field.optional ? `v.optional(v.nullable(${inner}), null)` : inner
}

/** The valibot schema of the field in a response (what the resource answers). */
export function responseSchema(field: Field): string {
  const inner = {
    string: 'v.string()',
    text: 'v.string()',
    integer: 'v.number()',
    number: 'v.number()',
    boolean: 'v.boolean()',
    // As stored (utcTimestamp()): the API description says date-time, as it does for the request.
    date: 'v.pipe(v.string(), v.isoTimestamp())',
    references: 'v.number()',
  }[field.type]
  return field.optional ? `v.nullable(${inner})` : inner
}

/** A sample value for row number `n` (a TypeScript expression using `n`). */
export function sampleValue(field: Field, label: string): string {
  switch (field.type) {
    case 'string': {
      const kind = textKind(field)
      if (kind === 'email') return `\`${slugOf(label)}\${n}@example.com\``
      if (kind === 'url') return `\`https://example.com/${slugOf(label)}-\${n}\``
      if (kind === 'uuid') return `\`${EXAMPLE_UUID.slice(0, -12)}\${String(n).padStart(12, '0')}\``
      return field.name === 'name' || field.name === 'title' ? `\`${label} \${n}\`` : `\`${field.name.replaceAll('_', ' ')} \${n}\``
    }
    case 'text':
      return `\`Sample ${field.name.replaceAll('_', ' ')} of ${label.toLowerCase()} \${n}.\``
    case 'integer':
      return 'n'
    case 'number':
      // A whole number: fields read back from a model's type cannot tell an integer column from a real one.
      return 'n * 10'
    case 'boolean':
      return 'n % 2 === 1'
    case 'date':
      return 'new Date(Date.UTC(2026, 0, n)).toISOString()'
    case 'references':
      // The parent's factory: create() stores a parent for the row (defineFactory, docs/models.md).
      return `${parentOf(field).singular.camel}Factory`
  }
}

/** A valid value for a test's request body (a JSON literal in TypeScript). */
export function exampleValue(field: Field, label: string): string {
  switch (field.type) {
    case 'string':
      return quoted(formatted(field, label) ?? `${label} example`)
    case 'text':
      return quoted(`An example ${field.name.replaceAll('_', ' ')}.`)
    case 'integer':
      return '7'
    case 'number':
      return '12.5'
    case 'boolean':
      return 'true'
    case 'date':
      return quoted('2026-01-15T10:00:00.000Z')
    case 'references':
      // A placeholder: the test stores a parent before its first request and writes its id here.
      return '0'
  }
}

/** A value of the wrong type, for a test's 422. */
export function wrongValue(field: Field): string {
  return field.type === 'integer' || field.type === 'number' || field.type === 'boolean' || field.type === 'references' ? quoted('not a number') : '12345'
}

/** Columns a model casts (SQLite stores booleans as 0/1). */
export function castOf(field: Field): string | undefined {
  return field.type === 'boolean' ? 'boolean' : undefined
}

/** The list's filters: a foreign key (`?project_id=3`: the tasks of one project). */
export function isFilter(field: Field): boolean {
  return field.type === 'references'
}

/** The list's `where` from its filters, each only when given: `...(project_id === undefined ? {} : { project_id })`. */
export function filterWhere(fields: readonly Field[]): string {
  const filters = fields.filter(isFilter)
  return filters.length === 0 ? '' : `, where: { ${filters.map((field) => `...(${field.name} === undefined ? {} : { ${field.name} })`).join(', ')} }`
}

export function isSearchable(field: Field): boolean {
  return field.type === 'string' || field.type === 'text'
}

/**
 * What a string column holds, read from its name: an app tightens such a
 * request with `v.email()`, `v.url()` or `v.uuid()`, so the values generated
 * tests and factories write for it are of that form from the start
 * (`Bookmark example` in a `url` column was a 422 once `v.url()` was added).
 */
type TextKind = 'email' | 'url' | 'uuid' | 'plain'

function textKind(field: Field): TextKind {
  if (field.type !== 'string') return 'plain'
  if (/(^|_)e?mail(_address)?$/.test(field.name)) return 'email'
  if (/(^|_)(url|uri|link|website|homepage|href)$/.test(field.name)) return 'url'
  if (/(^|_)(uuid|guid)$/.test(field.name)) return 'uuid'
  return 'plain'
}

/** A version-4 UUID, the example of a `uuid` column (a row's own replace its last digits). */
const EXAMPLE_UUID = '3b241101-e2bb-4255-8caf-4136c566a962'

/** `bookmark`, `blog-post`: a label in an address. */
function slugOf(label: string): string {
  return label.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'row'
}

/** The example value of an email, URL or UUID column; undefined for plain text. */
function formatted(field: Field, label: string): string | undefined {
  switch (textKind(field)) {
    case 'email':
      return `${slugOf(label)}@example.com`
    case 'url':
      return `https://example.com/${slugOf(label)}`
    case 'uuid':
      return EXAMPLE_UUID
    case 'plain':
      return undefined
  }
}

/** Another valid value, for a test's update. */
export function changedValue(field: Field, label: string): string {
  switch (field.type) {
    case 'string':
      return quoted(`${label} renamed`)
    case 'text':
      return quoted('A changed text.')
    case 'integer':
      return '8'
    case 'number':
      return '13.25'
    case 'boolean':
      return 'false'
    case 'date':
      return quoted('2026-02-01T08:30:00.000Z')
    case 'references':
      // The same parent: another would have to be stored first.
      return `valid.${field.name}`
  }
}

/** A string as a single-quoted TypeScript literal. */
export function quoted(text: string): string {
  return `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`
}
