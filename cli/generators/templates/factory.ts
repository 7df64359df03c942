import { looksLikeReference, parentOf, sampleValue, type Field } from '../fields.ts'
import { appPaths, identifiers, importPath } from '../paths.ts'
import { defineTemplate, type WithFields } from '../template.ts'

export type FactoryOptions = WithFields

declare module '../template.ts' {
  interface TemplateOptions {
    factory: FactoryOptions
  }
}

/** `database/factories/<name>-factory.ts`: sample rows of a model, for seeders and tests. */
export default defineTemplate('factory', ({ names, options }) => {
  const id = identifiers(names)
  const path = appPaths.factory(names)
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
