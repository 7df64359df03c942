import { isFilter, isSearchable, parentOf, requestRules, requestSchema } from '../fields.ts'
import { appPaths, identifiers } from '../paths.ts'
import { defineTemplate, type WithFields } from '../template.ts'

export interface RequestOptions extends WithFields {
  /** Adds the list's query string: pagination, `search`, `sort` (make:crud). */
  list: boolean
}

declare module '../template.ts' {
  interface TemplateOptions {
    request: RequestOptions
  }
}

/**
 * `app/requests/<name>-request.ts`: a request schema (valibot), declared on
 * its routes (`.body(ProductRequest)`, `.query(ProductListQuery)`) so it is
 * validated before the handler runs and read by the API description.
 */
export default defineTemplate('request', ({ names, options }) => {
  const id = identifiers(names)
  const { fields } = options
  const body = fields.length === 0 ? ['  // title: v.pipe(v.string(), v.trim(), v.nonEmpty(), v.maxLength(200)),'] : fields.map((field) => `  ${field.name}: ${requestSchema(field)},`)
  const sortable = ['id', ...fields.map((field) => field.name), 'created_at', 'updated_at']
  const searchable = fields.filter(isSearchable)
  const filters = fields.filter(isFilter)
  // From the query string: digits, read as the id they make (a name not listed here would be ignored, so the list would not be filtered).
  const filterLines = filters.map((field) => `\n    ${field.name}: v.optional(v.pipe(v.string(), v.digits(), v.transform(Number), v.minValue(1), v.maxValue(Number.MAX_SAFE_INTEGER))),`).join('')
  const fromSvc = [...(options.list ? ['paginationQuery'] : []), ...requestRules(fields)].sort()
  const list = `

/**
 * The list's query string: \`?page=2&per_page=50\` (at most 100)${searchable.length > 0 ? ', `search=` (in ' + searchable.map((field) => field.name).join(', ') + ')' : ''}${filters.map((field) => `, \`${field.name}=\` (only those of one ${parentOf(field).singular.words})`).join('')}
 * and \`sort=\` (a column, \`-\` first for descending). A value out of range, or a sort that is no column, is a 422;
 * a name not listed here is ignored (not refused).
 */
export const ${id.listQuery} = v.intersect([
  paginationQuery({ perPage: 20, maxPerPage: 100 }),
  v.object({${searchable.length > 0 ? '\n    search: v.optional(v.pipe(v.string(), v.trim(), maxChars(100))),' : ''}${filterLines}
    sort: v.optional(v.picklist([${sortable.flatMap((column) => [`'${column}'`, `'-${column}'`]).join(', ')}])),
  }),
])`
  return {
    path: appPaths.request(names),
    contents: `/** What a client sends${options.list ? ` to create or update a ${names.singular.words}, and the list's query string` : ''}. Messages: docs/validation.md. */
import * as v from 'valibot'${fromSvc.length > 0 ? `\nimport { ${fromSvc.join(', ')} } from 'svc'` : ''}

export const ${id.request} = v.object({
${body.join('\n')}
})
export type ${id.request} = v.InferOutput<typeof ${id.request}>${options.list ? list : ''}
`,
  }
})
