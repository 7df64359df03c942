/** The human view of `route:rules`: one line per field, its type and its rules in words. */
import type { JsonSchemaJson, RouteRulesJson } from '../contract/index.ts'
import { printLine, printNote, table, type Colors } from '../output/print.ts'
import type { CommandIO } from '../output/io.ts'

export function printRouteRules(io: CommandIO, rules: RouteRulesJson, color: Colors): void {
  if (rules.routes.length === 0) printLine(io, 'No route declares a request schema (.body() or .query(): docs/validation.md).')
  for (const route of rules.routes) {
    const where = route.source ? color.dim(`  ${route.source.file}:${route.source.line}`) : ''
    printLine(io, `${color.green(route.method)} ${color.bold(route.path)}  ${route.handler}${where}`)
    for (const part of ['body', 'query'] as const) {
      const schema = route[part]
      if (schema === null) continue
      const rows = fieldRows(schema, '')
      printLine(io, `  ${color.cyan(part)}`)
      printLine(io, indent(table(rows.length > 0 ? rows : [['(any)', describeType(schema), '']], ['FIELD', 'TYPE', 'RULES']), '    '))
      // Checks across fields (a password confirmation) belong to the whole part, not to a row.
      const partRules = namedRules(schema)
      if (partRules.length > 0) printLine(io, `    ${color.dim('and')} ${partRules.join(', ')}`)
    }
    printLine(io)
  }
  for (const warning of rules.warnings) {
    const field = warning.field === '' ? `the whole ${warning.part}` : `${warning.part} field ${warning.field}`
    printNote(io, `${color.yellow('warning')}: ${warning.method} ${warning.path}, ${field}: ${warning.message} (left out of the schema)`)
  }
}

/** Object properties as rows, nested objects and lists of objects flattened (`address.city`, `items[].sku`). */
function fieldRows(schema: JsonSchemaJson, prefix: string): string[][] {
  const properties = schema.properties as Record<string, JsonSchemaJson> | undefined
  if (properties === undefined) return []
  const required = new Set((schema.required as string[] | undefined) ?? [])
  return Object.entries(properties).flatMap(([name, property]) => {
    const field = `${prefix}${name}`
    const rules = [required.has(name) ? 'required' : 'optional', ...describeRules(property)]
    const row = [field, describeType(property), rules.join(', ')]
    const items = property.items as JsonSchemaJson | undefined
    const nested = property.properties !== undefined ? fieldRows(property, `${field}.`) : items?.properties !== undefined ? fieldRows(items, `${field}[].`) : []
    return [row, ...nested]
  })
}

function describeType(schema: JsonSchemaJson): string {
  const options = (schema.anyOf ?? schema.oneOf) as JsonSchemaJson[] | undefined
  let type =
    options !== undefined
      ? options.map(describeType).join(' | ')
      : Array.isArray(schema.enum)
        ? schema.enum.map((value) => JSON.stringify(value)).join(' | ')
        : typeof schema.type === 'string'
          ? schema.type === 'array'
            ? `${describeType((schema.items as JsonSchemaJson | undefined) ?? {})}[]`
            : schema.type
          : Array.isArray(schema.type)
            ? schema.type.join(' | ')
            : 'any'
  if (schema.nullable === true) type += ' | null'
  return type
}

function describeRules(schema: JsonSchemaJson): string[] {
  const rules: string[] = []
  const range = (min: unknown, max: unknown, unit: string) => {
    const units = (count: number) => `${count} ${unit}${count === 1 ? '' : 's'}`
    if (typeof min === 'number' && typeof max === 'number') rules.push(min === max ? `exactly ${units(min)}` : `${min}-${units(max)}`)
    else if (typeof min === 'number') rules.push(`at least ${units(min)}`)
    else if (typeof max === 'number') rules.push(`at most ${units(max)}`)
  }
  range(schema.minLength, schema.maxLength, 'character')
  range(schema.minItems, schema.maxItems, 'item')
  if (typeof schema.minimum === 'number') rules.push(`>= ${schema.minimum}`)
  if (typeof schema.exclusiveMinimum === 'number') rules.push(`> ${schema.exclusiveMinimum}`)
  if (typeof schema.maximum === 'number') rules.push(`<= ${schema.maximum}`)
  if (typeof schema.exclusiveMaximum === 'number') rules.push(`< ${schema.exclusiveMaximum}`)
  if (typeof schema.multipleOf === 'number') rules.push(`multiple of ${schema.multipleOf}`)
  if (typeof schema.format === 'string') rules.push(schema.format)
  if (typeof schema.pattern === 'string') rules.push(`matches /${schema.pattern}/`)
  if ('default' in schema) rules.push(`default ${JSON.stringify(schema.default)}`)
  rules.push(...namedRules(schema))
  return rules
}

/** The names of the checks JSON Schema cannot express (namedCheck), which the conversion lists under x-rules. */
function namedRules(schema: JsonSchemaJson): string[] {
  const names = schema['x-rules']
  return Array.isArray(names) ? names.filter((name): name is string => typeof name === 'string') : []
}

function indent(text: string, by: string): string {
  return text
    .split('\n')
    .map((line) => by + line)
    .join('\n')
}
