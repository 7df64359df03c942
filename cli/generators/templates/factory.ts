import { looksLikeReference, parentOf, sampleValue, type Field } from '../fields.ts'
import { appPaths, identifiers, importPath } from '../paths.ts'
import { defineTemplate, type WithFields } from '../template.ts'

export interface FactoryOptions extends WithFields {
  /**
   * The factory of make:auth's users: svc's `userFactory` (users stored as registration stores them, who can log in),
   * in the app's file so that the app can replace it; the fields are not used.
   */
  authUsers?: boolean
}

declare module '../template.ts' {
  interface TemplateOptions {
    factory: FactoryOptions
  }
}

/** `database/factories/<name>-factory.ts`: sample rows of a model, for seeders and tests. */
export default defineTemplate('factory', ({ names, options }) => {
  const id = identifiers(names)
  const path = appPaths.factory(names)
  if (options.authUsers === true) {
    return {
      path,
      contents: `/**
 * Users that can log in, stored as registration stores them (svc's userFactory: \`User n\`, \`user<n>@example.test\`,
 * the password \`password\` hashed with argon2id): \`await ${id.factory}.create(db, { role: 'admin' })\`.
 * The parent's factory of a foreign key to users (\`user_id: ${id.factory}\`); replace this line to make other users.
 */
export { ${id.factory === 'userFactory' ? id.factory : `userFactory as ${id.factory}`} } from 'svc'
`,
    }
  }
  const values = options.fields.map((field) => `  ${field.name}: ${sampleValue(field, names.singular.pascal)},${plainIdNote(field)}`)
  const parents = options.fields.filter((field) => field.type === 'references').map((field) => {
    const parent = parentOf(field)
    return `import { ${identifiers(parent).factory} } from '${importPath(path, appPaths.factory(parent))}'\n`
  })
  return {
    path,
    contents: `/** Sample ${names.plural.words}: \`await ${id.factory}.createMany(db, 10)\` (row n gets the values below). */
import { defineFactory } from 'svc'
import { ${id.model} } from '${importPath(path, appPaths.model(names))}'
${[...new Set(parents)].join('')}
export const ${id.factory} = defineFactory(${id.model}, (n) => ({
${values.join('\n')}${values.length === 0 ? '  // column: `value ${n}`,' : ''}
}))
`,
  }
})

/** A plain number named like a foreign key: `n` names no particular row, which a foreign key added later refuses. */
function plainIdNote(field: Field): string {
  if (!looksLikeReference(field)) return ''
  return ` // any number: with a foreign key to ${parentOf(field).table}, make the column ${field.name}:references (docs/generators.md) or give a row's id`
}
