import { sampleValue } from '../fields.ts'
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
  const values = options.fields.map((field) => `  ${field.name}: ${sampleValue(field, names.singular.pascal)},`)
  return {
    path,
    contents: `/** Sample ${names.plural.words}: \`await ${id.factory}.createMany(db, 10)\` (row n gets the values below). */
import { defineFactory } from 'svc'
import { ${id.model} } from '${importPath(path, appPaths.model(names))}'

export const ${id.factory} = defineFactory(${id.model}, (n) => ({
${values.join('\n')}${values.length === 0 ? '  // column: `value ${n}`,' : ''}
}))
`,
  }
})
