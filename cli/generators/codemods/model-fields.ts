/**
 * The fields of a model the app already has, read from its row type
 * (`export interface Product { id: number; name: string; ... }`), so that
 * `make:resource Product` without `--fields` fits the model. TypeScript
 * types say less than `--fields`: `string` is read as `string`, `number` as
 * `number`, `| null` as optional. A `string` is a `date` when the model
 * generator marked it so (`// ISO 8601 date`) or, for models written before
 * or by hand, when its name says so (`published_at`, `due_on`, `birth_date`).
 * A `number` is a foreign key when marked so (`project_id: number // references projects`, the table read from the
 * mark: `author_id: number // references users`), an `integer` when
 * marked `// integer`; a `string` is a `text` when marked `// text`.
 */
import type { Field } from '../fields.ts'
import { DATE_MARK, defaultParentTable, INTEGER_MARK, REFERENCES_MARK, TEXT_MARK } from '../fields.ts'
import { lineEnd, parseModule, statements, type Node } from './source.ts'

const KEYWORDS: Record<string, Field['type']> = { TSStringKeyword: 'string', TSNumberKeyword: 'number', TSBooleanKeyword: 'boolean' }
const ADDED = new Set(['id', 'created_at', 'updated_at'])

export function modelFields(source: string, model: string): Field[] | undefined {
  const parsed = parseModule(source)
  if ('error' in parsed) return undefined
  for (const statement of statements(parsed.program)) {
    const declaration = statement.type === 'ExportNamedDeclaration' ? (statement.declaration as Node | null) : statement
    if (declaration?.type !== 'TSInterfaceDeclaration' || (declaration.id as Node).name !== model) continue
    const fields: Field[] = []
    for (const member of (declaration.body as Node).body as Node[]) {
      const name = (member.key as Node | undefined)?.name as string | undefined
      const annotation = ((member.typeAnnotation as Node | undefined)?.typeAnnotation as Node | undefined) ?? undefined
      if (member.type !== 'TSPropertySignature' || name === undefined || ADDED.has(name) || annotation === undefined) continue
      const types = annotation.type === 'TSUnionType' ? (annotation.types as Node[]) : [annotation]
      const optional = member.optional === true || types.some((type) => type.type === 'TSNullKeyword' || type.type === 'TSUndefinedKeyword')
      const type = types.map((each) => KEYWORDS[each.type]).find((each) => each !== undefined)
      if (type === undefined) continue
      const comment = source.slice(member.end, lineEnd(source, member.end))
      const date = type === 'string' && (comment.includes(DATE_MARK) || /(^|_)(at|on|date)$/.test(name))
      const marked = date ? 'date' : markedType(type, comment, name)
      fields.push(marked === 'references' ? { name, type: marked, optional, table: referencedTable(comment, name) } : { name, type: marked, optional })
    }
    return fields
  }
  return undefined
}

/** The table after a references mark (`// references users`); the one the column's name says when the mark names none. */
function referencedTable(comment: string, name: string): string {
  const marked = new RegExp(`^${REFERENCES_MARK}\\s+([a-z][a-z0-9_]*)`).exec(comment.replace(/^[\s;,]*/, ''))
  return marked?.[1] ?? defaultParentTable(name)
}

/** The type the model generator's mark after the member says, where TypeScript's says less. */
function markedType(type: Field['type'], comment: string, name: string): Field['type'] {
  const mark = comment.replace(/^[\s;,]*/, '').trimEnd()
  if (type === 'number' && mark.startsWith(REFERENCES_MARK) && name.endsWith('_id')) return 'references'
  if (type === 'number' && mark === INTEGER_MARK) return 'integer'
  if (type === 'string' && mark === TEXT_MARK) return 'text'
  return type
}
