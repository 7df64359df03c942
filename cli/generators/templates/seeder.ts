import { sqlName } from '../fields.ts'
import { appPaths, identifiers, importPath } from '../paths.ts'
import { defineTemplate } from '../template.ts'

export interface SeederOptions {
  /** Rows from the model's factory (make:crud --seed, or a factory that exists); else a seeder to fill in. */
  factory: boolean
  /** How many rows. */
  count: number
}

declare module '../template.ts' {
  interface TemplateOptions {
    seeder: SeederOptions
  }
}

/**
 * `database/seeders/<plural>.ts`: `run(db)`, the interface \`svc db:seed\` and
 * \`migrate:fresh --seed\` call (every seeder, in file-name order).
 */
export default defineTemplate('seeder', ({ names, options }) => {
  const id = identifiers(names)
  const path = appPaths.seeder(names)
  if (!options.factory) {
    return {
      path,
      contents: `/** Rows for the ${names.table} table (\`svc db:seed\`). */
import type { Database } from 'svc'

export async function run(db: Database): Promise<void> {
  // await db.execute('insert into ${sqlName(names.table)} (${sqlName('name')}) values (?)', ['First'])
}
`,
    }
  }
  return {
    path,
    contents: `/** ${options.count} sample ${names.plural.words} (\`svc db:seed\`). */
import type { Database } from 'svc'
import { ${id.factory} } from '${importPath(path, appPaths.factory(names))}'

export async function run(db: Database): Promise<void> {
  const rows = await ${id.factory}.createMany(db, ${options.count})
  console.info(\`Seeded \${rows.length} ${names.plural.words}\`)
}
`,
  }
})
