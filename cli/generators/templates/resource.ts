import { responseSchema, tsType } from '../fields.ts'
import { appPaths, identifiers, importPath } from '../paths.ts'
import { defineTemplate, type WithFields } from '../template.ts'

export interface ResourceOptions extends WithFields {
  /** Whether the model's file exists (or is written with it): the resource then takes its row type. */
  model: boolean
}

declare module '../template.ts' {
  interface TemplateOptions {
    resource: ResourceOptions
  }
}

/**
 * `app/resources/<name>-resource.ts`: how a row is answered (a response
 * transformer): the shape, declared with `.response(...)` for the API
 * description, and the function that builds it.
 */
export default defineTemplate('resource', ({ names, options }) => {
  const id = identifiers(names)
  const path = appPaths.resource(names)
  const { fields } = options
  const columns = [
    { name: 'id', schema: 'v.number()', type: 'number' },
    ...fields.map((field) => ({ name: field.name, schema: responseSchema(field), type: tsType(field) })),
    { name: 'created_at', schema: 'v.string()', type: 'string' },
    { name: 'updated_at', schema: 'v.string()', type: 'string' },
  ]
  const row = options.model ? id.model : `${id.model}Row`
  const rowType = options.model
    ? `import type { ${id.model} } from '${importPath(path, appPaths.model(names))}'\n`
    : `\n/** A stored ${names.singular.words} (there is no model ${id.model} yet: svc make:model ${names.input}). */\ninterface ${row} {\n${columns.map((column) => `  ${column.name}: ${column.type}`).join('\n')}\n}\n`
  const parameter = names.singular.camel
  return {
    path,
    contents: `/** How a ${names.singular.words} is answered: the shape (\`.response(${id.resourceSchema})\`) and the function that builds it from a row. */
import * as v from 'valibot'
${rowType}
export const ${id.resourceSchema} = v.object({
${columns.map((column) => `  ${column.name}: ${column.schema},`).join('\n')}
})
export type ${id.resourceSchema} = v.InferOutput<typeof ${id.resourceSchema}>

/** A list of them (\`.response(${id.resourceCollection})\` on the list route). */
export const ${id.resourceCollection} = v.array(${id.resourceSchema})

export function ${id.resourceFunction}(${parameter}: ${row}): ${id.resourceSchema} {
  return {
${columns.map((column) => `    ${column.name}: ${parameter}.${column.name},`).join('\n')}
  }
}
`,
  }
})
