/**
 * A declared schema (`.body()`, `.query()`, `.response()` on a route) as JSON
 * Schema, whatever library wrote it: route:rules prints it, make:openapi
 * builds the API description from it.
 *
 * - A Standard Schema that carries its own JSON Schema (the Standard JSON
 *   Schema interface, `~standard.jsonSchema`: zod 4.2+, arktype, valibot's
 *   `toStandardJsonSchema`) converts itself.
 * - A valibot schema (the framework's auth bodies, the apps' own) goes
 *   through @valibot/to-json-schema.
 * - Anything else has no JSON Schema: `schema` is null and a warning says why.
 *
 * What cannot be expressed (a custom check, a cross-field rule, a transform)
 * is left out of the schema and reported as a warning naming the field; a
 * check named with `namedCheck` is listed under `x-rules` instead.
 */
import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec'
import { toJsonSchema as valibotToJsonSchema, type ConversionConfig } from '@valibot/to-json-schema'
import { namedCheckRule } from '../../framework/validation/issues.ts'
import { UTC_SPELLING_ACTION } from '../../framework/validation/rules.ts'

export type JsonSchema = { [keyword: string]: unknown }

/** `openapi-3.0` by default: OpenAPI 3.0.3's schema dialect (`nullable`, no `type: "null"`). */
export type JsonSchemaTarget = 'openapi-3.0' | 'draft-07' | 'draft-2020-12'

/** `input`: what a client sends (request bodies, query strings); `output`: what a handler answers. */
export type SchemaDirection = 'input' | 'output'

export interface SchemaWarning {
  /** Where in the value: `title`, `items[].name`, `tags[]`; '' for the whole value. */
  field: string
  message: string
}

export interface ConvertedSchema {
  /** null when the schema could not be converted at all. */
  schema: JsonSchema | null
  warnings: SchemaWarning[]
}

export interface ConvertOptions {
  direction: SchemaDirection
  target?: JsonSchemaTarget
  /**
   * Named schemas written once and referenced (valibot only): each one the
   * schema contains (itself included) becomes `{ $ref: '#/$defs/<name>' }`,
   * its JSON Schema under `$defs`. make:openapi moves them to components.
   */
  definitions?: Readonly<Record<string, StandardSchemaV1>>
}

/**
 * The extension keyword listing the named checks (svc's `namedCheck`) a value
 * must pass, which JSON Schema cannot express: `"x-rules": ["visible"]`
 * (docs/validation.md lists svc's own).
 */
export const RULES_KEYWORD = 'x-rules'

/**
 * string → string steps that leave what a client may send unchanged: the
 * conversion reads past them (in the input direction it otherwise stops at
 * the first transformation, losing the length rules after a `trim()`).
 */
const SHAPE_KEEPING_ACTIONS = ['trim', 'trim_start', 'trim_end', 'to_lower_case', 'to_upper_case', 'normalize', UTC_SPELLING_ACTION]

/** @example const { schema, warnings } = toJsonSchema(route.schemas.body, { direction: 'input' }) */
export function toJsonSchema(schema: StandardSchemaV1, options: ConvertOptions): ConvertedSchema {
  const target = options.target ?? 'openapi-3.0'
  const props = schema['~standard'] as StandardSchemaV1.Props & Partial<StandardJSONSchemaV1.Props>
  if (props.jsonSchema !== undefined) {
    try {
      return { schema: tidy(props.jsonSchema[options.direction]({ target }), target), warnings: [] }
    } catch (error) {
      return { schema: null, warnings: [{ field: '', message: `${props.vendor} cannot convert this schema to ${target}: ${(error as Error).message}` }] }
    }
  }
  if (props.vendor === 'valibot') return fromValibot(schema as unknown as ValibotNode, options.direction, target, options.definitions)
  return {
    schema: null,
    warnings: [
      {
        field: '',
        message: `this ${props.vendor} schema carries no JSON Schema (its library does not implement Standard JSON Schema, ~standard.jsonSchema)`,
      },
    ],
  }
}

// valibot's schemas and actions, as far as the conversion walks them.
interface ValibotNode {
  kind: 'schema' | 'validation' | 'transformation' | 'metadata'
  type: string
  pipe?: ValibotNode[]
  entries?: Record<string, ValibotNode>
  rest?: ValibotNode
  item?: ValibotNode
  items?: ValibotNode[]
  options?: unknown[]
  wrapped?: ValibotNode
  key?: ValibotNode
  value?: ValibotNode
}

function fromValibot(
  schema: ValibotNode,
  direction: SchemaDirection,
  target: JsonSchemaTarget,
  named: Readonly<Record<string, StandardSchemaV1>> = {},
): ConvertedSchema {
  const merged = new Map<ValibotNode, ValibotNode>()
  schema = mergeRechecks(schema, merged)
  const fields = new Map<object, string>()
  indexFields(schema, '', fields)
  // Only the definitions this schema contains: valibot converts every one it is given.
  const definitions = Object.fromEntries(
    Object.entries(named).flatMap(([name, definition]) => {
      const node = merged.get(definition as unknown as ValibotNode) ?? (definition as unknown as ValibotNode)
      return fields.has(node) ? [[name, node]] : []
    }),
  )
  const warnings: SchemaWarning[] = []
  const report = (node: object, errors: readonly string[] | undefined) => {
    for (const message of errors ?? []) {
      const field = fields.get(node) ?? ''
      if (!warnings.some((known) => known.field === field && known.message === message)) warnings.push({ field, message })
    }
    return undefined
  }
  const config: ConversionConfig = {
    target,
    typeMode: direction,
    errorMode: 'ignore',
    ignoreActions: SHAPE_KEEPING_ACTIONS,
    overrideSchema: ({ valibotSchema, errors }) => report(valibotSchema, errors),
    overrideAction: ({ valibotAction, jsonSchema, errors }) => {
      // A check named with svc's namedCheck (`visible`, `confirmed`) is the same rule the 422 names: listed, not lost.
      const requirement = (valibotAction as { requirement?: unknown }).requirement
      const rule = valibotAction.type === 'check' || valibotAction.type === 'partial_check' ? namedCheckRule(requirement) : undefined
      if (rule !== undefined) {
        const listed = ((jsonSchema as JsonSchema)[RULES_KEYWORD] as string[] | undefined) ?? []
        return { ...jsonSchema, [RULES_KEYWORD]: [...listed, rule] } as ReturnType<NonNullable<ConversionConfig['overrideAction']>>
      }
      return report(valibotAction, errors)
    },
    ...(Object.keys(definitions).length > 0 ? { definitions: definitions as unknown as ConversionConfig['definitions'] } : {}),
  }
  try {
    const converted = valibotToJsonSchema(schema as unknown as Parameters<typeof valibotToJsonSchema>[0], config) as JsonSchema
    return { schema: tidy(converted, target), warnings }
  } catch (error) {
    return { schema: null, warnings: [...warnings, { field: '', message: (error as Error).message }] }
  }
}

/**
 * A pipe that goes on into another schema of the same type checks one value twice, as in
 * `v.pipe(v.string(), v.trim(), utcTimestamp())`. valibot's converter, reading a request, stops at the second
 * schema, and the rules after it (utcTimestamp's date-time format) were lost; here the pipe is flattened and
 * the second schema dropped, so its rules read as the pipe's own. Unchanged nodes are kept (named definitions
 * are found by identity); `merged` maps each changed node to its copy.
 */
function mergeRechecks(node: ValibotNode, merged: Map<ValibotNode, ValibotNode>): ValibotNode {
  const known = merged.get(node)
  if (known !== undefined) return known
  // A recursive schema comes back to itself: it stays as it is.
  merged.set(node, node)
  const copy: ValibotNode = { ...node }
  let changed = false
  const visit = (child: ValibotNode) => {
    const result = isNode(child) && child.kind === 'schema' ? mergeRechecks(child, merged) : child
    if (result !== child) changed = true
    return result
  }
  if (node.pipe !== undefined) {
    const flat = flattenPipe(node.pipe)
    const root = flat[0]
    const pipe = flat.filter((item, index) => index === 0 || !(item.kind === 'schema' && root !== undefined && isRecheckOf(item, root))).map(visit)
    if (pipe.length !== node.pipe.length || pipe.some((item, index) => item !== node.pipe![index])) {
      copy.pipe = pipe
      changed = true
    }
  }
  if (node.entries !== undefined) copy.entries = Object.fromEntries(Object.entries(node.entries).map(([name, entry]) => [name, visit(entry)]))
  if (node.rest !== undefined) copy.rest = visit(node.rest)
  if (node.item !== undefined) copy.item = visit(node.item)
  if (node.items !== undefined) copy.items = node.items.map(visit)
  if (node.kind === 'schema' && Array.isArray(node.options)) copy.options = node.options.map((option) => (isNode(option) ? visit(option) : option))
  if (node.wrapped !== undefined) copy.wrapped = visit(node.wrapped)
  if (node.key !== undefined) copy.key = visit(node.key)
  if (node.value !== undefined) copy.value = visit(node.value)
  const result = changed ? copy : node
  merged.set(node, result)
  return result
}

/** valibot's own flattening: a schema with a pipe inside a pipe is its items. */
function flattenPipe(pipe: ValibotNode[]): ValibotNode[] {
  return pipe.flatMap((item) => (item.pipe !== undefined ? flattenPipe(item.pipe) : [item]))
}

/** A bare schema of a primitive type the pipe's first schema already is (`string` after `string`). */
function isRecheckOf(item: ValibotNode, root: ValibotNode): boolean {
  const structured = item.entries !== undefined || item.item !== undefined || item.items !== undefined || item.wrapped !== undefined || Array.isArray(item.options)
  return !structured && item.type === root.type && PRIMITIVE_TYPES.has(item.type)
}

const PRIMITIVE_TYPES = new Set(['string', 'number', 'boolean', 'bigint'])

/** Every schema and pipeline action of a valibot schema → the field it checks (`a.b`, `list[]`). */
function indexFields(node: ValibotNode, path: string, fields: Map<object, string>): void {
  if (fields.has(node)) return
  fields.set(node, path)
  const child = (name: string) => (path === '' ? name : `${path}.${name}`)
  for (const item of node.pipe ?? []) {
    if (item !== node) indexFields(item, path, fields)
  }
  for (const [name, entry] of Object.entries(node.entries ?? {})) indexFields(entry, child(name), fields)
  if (node.rest !== undefined) indexFields(node.rest, child('*'), fields)
  if (node.item !== undefined) indexFields(node.item, `${path}[]`, fields)
  node.items?.forEach((item, index) => indexFields(item, `${path}[${index}]`, fields))
  if (node.kind === 'schema' && Array.isArray(node.options)) {
    for (const option of node.options) if (isNode(option)) indexFields(option, path, fields)
  }
  if (node.wrapped !== undefined) indexFields(node.wrapped, path, fields)
  if (node.value !== undefined && node.key !== undefined) indexFields(node.value, child('*'), fields)
}

function isNode(value: unknown): value is ValibotNode {
  return typeof value === 'object' && value !== null && 'kind' in value && 'type' in value
}

/**
 * OpenAPI 3.0 (JSON Schema draft 4) wants `required` absent rather than
 * empty, `nullable` wherever null is allowed, and ignores every keyword beside a `$ref`: a nullable or defaulted
 * reference (`{ $ref, nullable: true }`) becomes `{ allOf: [{ $ref }], nullable: true }`.
 */
function tidy(schema: JsonSchema, target: JsonSchemaTarget): JsonSchema {
  if (target !== 'openapi-3.0') return schema
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk)
    if (typeof value !== 'object' || value === null) return value
    const result: JsonSchema = {}
    for (const [key, item] of Object.entries(value)) {
      if (key === 'required' && Array.isArray(item) && item.length === 0) continue
      result[key] = walk(item)
    }
    // `null` is a value only where `nullable` says so (3.0.3): valibot writes v.null() as `enum: [null]` alone.
    if (Array.isArray(result.enum) && result.enum.includes(null)) result.nullable = true
    if (typeof result.$ref === 'string' && Object.keys(result).some((key) => key !== '$ref' && key !== '$defs')) {
      const { $ref, $defs, ...siblings } = result
      return { allOf: [{ $ref }], ...siblings, ...($defs === undefined ? {} : { $defs }) }
    }
    return result
  }
  return walk(schema) as JsonSchema
}
