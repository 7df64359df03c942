/**
 * The schemas of an API description: each declared schema converted once
 * per direction (what a client sends, what a handler answers) by the shared
 * converter (cli/schemas/to-json-schema.ts, OpenAPI 3.0 dialect), named
 * ones written to `components/schemas` and referenced. References are final
 * only after `finish()`: a named schema whose input and output forms differ
 * (a transform) gets a second component, `<Name>Input`.
 */
import type { StandardSchemaV1 } from '@standard-schema/spec'
import { toJsonSchema, type JsonSchema, type SchemaDirection } from '../schemas/to-json-schema.ts'
import type { SchemaNames } from './schema-names.ts'
import { stableStringify } from './stable-json.ts'

export const COMPONENT_REF = '#/components/schemas/'
const LOCAL_REF = '#/$defs/'

export interface SchemaWarning {
  field: string
  message: string
}

interface PendingRef {
  target: JsonSchema
  name: string
  direction: SchemaDirection
}

export class SchemaComponents {
  private readonly definitions: Record<string, StandardSchemaV1>
  private readonly converted = new Map<string, Partial<Record<SchemaDirection, JsonSchema>>>()
  private readonly pending: PendingRef[] = []
  private readonly finalNames = new Map<string, string>()
  private anonymous = 0

  constructor(private readonly names: SchemaNames) {
    this.definitions = Object.fromEntries([...names].map(([schema, name]) => [name, schema]))
  }

  /**
   * `schema` as JSON Schema, named schemas inside it (itself included) as
   * references; null when it cannot be converted at all. `inline`: no
   * references (a query string, whose fields become parameters).
   */
  schema(schema: StandardSchemaV1, direction: SchemaDirection, options: { inline?: boolean } = {}): { schema: JsonSchema | null; warnings: SchemaWarning[] } {
    const name = this.names.get(schema)
    if (options.inline !== true && name !== undefined && schema['~standard'].vendor !== 'valibot') {
      // Another library's named schema: one component, converted by its own library (nothing inside it is shared).
      const result = toJsonSchema(schema, { direction })
      if (result.schema === null) return result
      this.store(name, direction, result.schema)
      return { schema: this.reference(name, direction), warnings: result.warnings }
    }
    const result = toJsonSchema(schema, { direction, ...(options.inline === true ? {} : { definitions: this.definitions }) })
    if (result.schema === null) return result
    const { $defs, ...root } = result.schema
    const renamed = new Map<string, string>()
    for (const [key, definition] of Object.entries(($defs ?? {}) as Record<string, JsonSchema>)) {
      // valibot numbers the definitions it makes for recursive (lazy) schemas: give them names of their own.
      const component = key in this.definitions ? key : `Recursive${++this.anonymous}`
      renamed.set(key, component)
      this.store(component, direction, this.collectRefs(definition, direction, renamed))
    }
    return { schema: this.collectRefs(root, direction, renamed), warnings: result.warnings }
  }

  /** Fixes every reference's final name; call once, after the last `schema()`. */
  finish(): void {
    for (const [name, forms] of this.converted) {
      const { input, output } = forms
      const differ = input !== undefined && output !== undefined && stableStringify(input) !== stableStringify(output)
      this.finalNames.set(`${name} output`, name)
      this.finalNames.set(`${name} input`, differ ? this.freeName(`${name}Input`) : name)
    }
    for (const ref of this.pending) ref.target.$ref = `${COMPONENT_REF}${this.finalNames.get(`${ref.name} ${ref.direction}`)}`
  }

  /** `components/schemas`, after `finish()`. */
  components(): Record<string, JsonSchema> {
    const components: Record<string, JsonSchema> = {}
    for (const [name, forms] of this.converted) {
      for (const direction of ['output', 'input'] as const) {
        const form = forms[direction]
        if (form !== undefined) components[this.finalNames.get(`${name} ${direction}`)!] ??= form
      }
    }
    return components
  }

  private store(name: string, direction: SchemaDirection, schema: JsonSchema): void {
    const forms = this.converted.get(name) ?? {}
    forms[direction] ??= schema
    this.converted.set(name, forms)
  }

  private reference(name: string, direction: SchemaDirection): JsonSchema {
    const target: JsonSchema = { $ref: '' }
    this.pending.push({ target, name, direction })
    return target
  }

  /** A copy of `schema` whose local references (`#/$defs/X`) are pending component references. */
  private collectRefs(schema: JsonSchema, direction: SchemaDirection, renamed: ReadonlyMap<string, string>): JsonSchema {
    const walk = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(walk)
      if (typeof value !== 'object' || value === null) return value
      const ref = (value as JsonSchema).$ref
      if (typeof ref === 'string' && ref.startsWith(LOCAL_REF)) {
        const key = decodeURIComponent(ref.slice(LOCAL_REF.length)).replaceAll('~1', '/').replaceAll('~0', '~')
        return this.reference(renamed.get(key) ?? key, direction)
      }
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, walk(item)]))
    }
    return walk(schema) as JsonSchema
  }

  private freeName(base: string): string {
    let name = base
    for (let n = 2; this.converted.has(name) || [...this.finalNames.values()].includes(name); n++) name = `${base}${n}`
    return name
  }
}
