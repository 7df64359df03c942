import { sqlName } from '../fields.ts'
import { appPaths, identifiers, importPath } from '../paths.ts'
import { defineTemplate } from '../template.ts'

export interface ServiceOptions {
  /** Whether it works through the repository of the same name (make:crud), or starts empty. */
  repository: boolean
}

declare module '../template.ts' {
  interface TemplateOptions {
    service: ServiceOptions
  }
}

/** `app/services/<name>-service.ts`: what the app does (its rules), between the controller and the repository. */
export default defineTemplate('service', ({ names, options }) => {
  const id = identifiers(names)
  const path = appPaths.service(names)
  if (!options.repository) {
    return {
      path,
      contents: `/** What the app does with ${names.plural.words}: controllers call it with the request's database (\`new ${id.service}(c.db)\`). */
import type { Database } from 'svc'

export class ${id.service} {
  constructor(private readonly db: Database) {}

  async count(): Promise<number> {
    const row = await this.db.first<{ total: number }>('select count(*) as total from ${sqlName(names.table)}')
    return row?.total ?? 0
  }
}
`,
    }
  }
  const missing = `new HttpError(404, '${names.label} not found')`
  return {
    path,
    contents: `/**
 * What the app does with ${names.plural.words}: the rules beyond storage go here.
 * The controller calls it with the request's database; it calls the repository.
 */
import { HttpError, type Database, type Page } from 'svc'
import type { ${id.model}, ${id.attributes} } from '${importPath(path, appPaths.model(names))}'
import { ${id.repository}, type ${id.listOptions} } from '${importPath(path, appPaths.repository(names))}'

export class ${id.service} {
  private readonly ${names.plural.camel}: ${id.repository}

  constructor(db: Database) {
    this.${names.plural.camel} = new ${id.repository}(db)
  }

  list(options: ${id.listOptions}): Promise<Page<${id.model}>> {
    return this.${names.plural.camel}.list(options)
  }

  async get(id: number): Promise<${id.model}> {
    const ${names.singular.camel} = await this.${names.plural.camel}.find(id)
    if (${names.singular.camel} === undefined) throw ${missing}
    return ${names.singular.camel}
  }

  create(attributes: ${id.attributes}): Promise<${id.model}> {
    return this.${names.plural.camel}.create(attributes)
  }

  async update(id: number, attributes: Partial<${id.attributes}>): Promise<${id.model}> {
    const ${names.singular.camel} = await this.${names.plural.camel}.update(id, attributes)
    if (${names.singular.camel} === undefined) throw ${missing}
    return ${names.singular.camel}
  }

  async delete(id: number): Promise<void> {
    if ((await this.${names.plural.camel}.delete(id)) === undefined) throw ${missing}
  }
}
`,
  }
})
