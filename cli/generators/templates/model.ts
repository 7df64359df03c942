import { castOf, DATE_MARK, INTEGER_MARK, parentOf, REFERENCES_MARK, TEXT_MARK, tsType, type Field } from '../fields.ts'
import { appPaths, identifiers } from '../paths.ts'
import { defineTemplate, type WithFields } from '../template.ts'

export type ModelOptions = WithFields

declare module '../template.ts' {
  interface TemplateOptions {
    model: ModelOptions
  }
}

/** `app/models/<name>.ts`: the row's type, what create/update write, and the model (docs/models.md). */
export default defineTemplate('model', ({ names, options }) => {
  const id = identifiers(names)
  const { fields } = options
  const casts = fields.flatMap((field) => (castOf(field) === undefined ? [] : [`${field.name}: '${castOf(field)}'`]))
  const attribute = (field: Field) => `  ${field.name}${field.optional ? '?' : ''}: ${tsType(field)}`
  return {
    path: appPaths.model(names),
    contents: `/** One row of the ${names.table} table (docs/models.md). */
import { defineModel } from 'svc'

export interface ${id.model} {
  id: number
${fields.map((field) => `  ${field.name}: ${tsType(field)}${mark(field)}`).join('\n')}${fields.length > 0 ? '\n' : ''}  created_at: string
  updated_at: string
}

/** What create and update write: the fillable columns. */
export interface ${id.attributes} {${fields.length > 0 ? `\n${fields.map(attribute).join('\n')}\n` : ''}}

export const ${id.model} = defineModel<${id.model}, ${id.attributes}>({
  name: '${names.label}',
  table: '${names.table}',
  fillable: [${fields.map((field) => `'${field.name}'`).join(', ')}],${casts.length > 0 ? `\n  casts: { ${casts.join(', ')} },` : ''}
})
`,
  }
})

/** What generators reading the model back need that the TypeScript type does not say. */
function mark(field: Field): string {
  if (field.type === 'date') return ` ${DATE_MARK}`
  if (field.type === 'references') return ` ${REFERENCES_MARK} ${parentOf(field).table}`
  if (field.type === 'text') return ` ${TEXT_MARK}`
  if (field.type === 'integer') return ` ${INTEGER_MARK}`
  return ''
}
