import { filterWhere, isFilter, isSearchable } from '../fields.ts'
import { appPaths, identifiers, importPath } from '../paths.ts'
import { defineTemplate, type WithFields } from '../template.ts'

export type RepositoryOptions = WithFields

declare module '../template.ts' {
  interface TemplateOptions {
    repository: RepositoryOptions
  }
}

/** `app/repositories/<name>-repository.ts`: the one place that reads and writes the rows (through the model). */
export default defineTemplate('repository', ({ names, options }) => {
  const id = identifiers(names)
  const path = appPaths.repository(names)
  const searchable = options.fields.filter(isSearchable).map((field) => `'${field.name}'`)
  const filters = options.fields.filter(isFilter).map((field) => `, ${field.name}`).join('')
  return {
    path,
    contents: `/** Reads and writes ${names.plural.words}: the one place that knows how they are stored. */
import type { Database, Page, SortKey } from 'svc'
import { ${id.model}, type ${id.attributes} } from '${importPath(path, appPaths.model(names))}'

export interface ${id.listOptions} {
  page: number
  perPage: number
  search?: string
  sort?: SortKey<${id.model}>${options.fields.filter(isFilter).map((field) => `\n  ${field.name}?: number`).join('')}
}

export class ${id.repository} {
  constructor(private readonly db: Database) {}

  list({ page, perPage, search, sort${filters} }: ${id.listOptions}): Promise<Page<${id.model}>> {
    return ${id.model}.paginate(this.db, { page, perPage, sort${searchable.length > 0 ? `, search: search === undefined ? undefined : { term: search, columns: [${searchable.join(', ')}] }` : ''}${filterWhere(options.fields)} })
  }

  find(id: number): Promise<${id.model} | undefined> {
    return ${id.model}.find(this.db, id)
  }

  create(attributes: ${id.attributes}): Promise<${id.model}> {
    return ${id.model}.create(this.db, attributes)
  }

  update(id: number, attributes: Partial<${id.attributes}>): Promise<${id.model} | undefined> {
    return ${id.model}.update(this.db, id, attributes)
  }

  delete(id: number): Promise<${id.model} | undefined> {
    return ${id.model}.delete(this.db, id)
  }
}
`,
  }
})
