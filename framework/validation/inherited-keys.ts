/**
 * A schema field named like a property every object inherits (`constructor`,
 * `toString`, `valueOf`...) is read by valibot as `input[key]`: missing from
 * the body, it is found on `Object.prototype`, so a required field reads
 * "must be a string" instead of "required", and an optional one refuses a
 * body that leaves it out. Inputs for such schemas are copied onto objects
 * without a prototype, along the schema only; every other schema (nearly
 * all) costs one WeakMap lookup.
 */
import type { StandardSchemaV1 } from '@standard-schema/spec'
import { WRAPPER_TYPES } from './field-schema.ts'

/** How to copy an input for one schema: null when nothing in it names an inherited key. */
type Plan = { kind: 'object'; entries: ReadonlyMap<string, Plan | null> } | { kind: 'array'; item: Plan } | { kind: 'wrapped'; inner: Plan }

interface SchemaShape {
  type?: unknown
  entries?: Record<string, unknown>
  item?: unknown
  wrapped?: unknown
}

const OBJECT_TYPES = new Set(['object', 'loose_object', 'strict_object', 'object_with_rest'])
const plans = new WeakMap<object, Plan | null>()

/** `input` as `schema` should read it: own properties only where the schema names an inherited key. */
export function withOwnKeysOnly(schema: StandardSchemaV1, input: unknown): unknown {
  // The cached plan first: the set of schemas being walked is needed only the first time.
  const cached = plans.get(schema)
  const plan = cached !== undefined ? cached : planFor(schema, new Set())
  return plan === null ? input : copyAlong(plan, input)
}

function planFor(schema: unknown, visiting: Set<object>): Plan | null {
  if (typeof schema !== 'object' || schema === null) return null
  const known = plans.get(schema)
  if (known !== undefined) return known
  // A schema that contains itself (v.lazy is not followed, so only a hand-built cycle) needs no copy through the cycle.
  if (visiting.has(schema)) return null
  visiting.add(schema)
  const plan = buildPlan(schema as SchemaShape, visiting)
  visiting.delete(schema)
  plans.set(schema, plan)
  return plan
}

function buildPlan(schema: SchemaShape, visiting: Set<object>): Plan | null {
  const type = typeof schema.type === 'string' ? schema.type : ''
  if (OBJECT_TYPES.has(type) && typeof schema.entries === 'object' && schema.entries !== null) {
    const entries = new Map<string, Plan | null>()
    let needed = false
    for (const [key, entry] of Object.entries(schema.entries)) {
      const inner = planFor(entry, visiting)
      if (key in Object.prototype || inner !== null) needed = true
      entries.set(key, inner)
    }
    return needed ? { kind: 'object', entries } : null
  }
  if (type === 'array') {
    const item = planFor(schema.item, visiting)
    return item === null ? null : { kind: 'array', item }
  }
  if (WRAPPER_TYPES.has(type)) {
    const inner = planFor(schema.wrapped, visiting)
    return inner === null ? null : { kind: 'wrapped', inner }
  }
  return null
}

function copyAlong(plan: Plan, input: unknown): unknown {
  switch (plan.kind) {
    case 'wrapped':
      return copyAlong(plan.inner, input)
    case 'array':
      return Array.isArray(input) ? input.map((item) => copyAlong(plan.item, item)) : input
    case 'object': {
      if (typeof input !== 'object' || input === null || Array.isArray(input)) return input
      const copy = Object.create(null) as Record<string, unknown>
      for (const key of Object.keys(input)) {
        const value = (input as Record<string, unknown>)[key]
        const inner = plan.entries.get(key)
        // Defined as data: assigning `__proto__` would set the copy's prototype instead of a field.
        Object.defineProperty(copy, key, { value: inner ? copyAlong(inner, value) : value, enumerable: true, writable: true, configurable: true })
      }
      return copy
    }
  }
}
