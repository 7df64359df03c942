/**
 * What a generated resource declares it answers (`.response()`, for the API
 * description): a `date` field is documented as `format: date-time`, as the
 * request that stored it is (utcTimestamp()); it was a bare string.
 */
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { responseSchema, type Field } from '../../cli/generators/fields.ts'
import { toJsonSchema } from '../../cli/schemas/to-json-schema.ts'

/** The schema a generated resource file holds for `field`, evaluated with what the file imports. */
function generated(field: Field): v.GenericSchema {
  return new Function('v', `return ${responseSchema(field)}`)(v) as v.GenericSchema
}

describe('generated response schemas', () => {
  it('document a date field as date-time, nullable when optional, with no warning', () => {
    const resource = v.object({
      due_on: generated({ name: 'due_on', type: 'date', optional: false }),
      done_on: generated({ name: 'done_on', type: 'date', optional: true }),
      title: generated({ name: 'title', type: 'string', optional: false }),
    })
    const { schema, warnings } = toJsonSchema(resource, { direction: 'output' })
    expect(warnings).toEqual([])
    expect(schema).toMatchObject({
      properties: {
        due_on: { type: 'string', format: 'date-time' },
        done_on: { type: 'string', format: 'date-time', nullable: true },
        title: { type: 'string' },
      },
    })
    expect((schema as { properties: { title: object } }).properties.title).not.toHaveProperty('format')
  })

  it('accept the spelling utcTimestamp() stores', () => {
    const dueOn = generated({ name: 'due_on', type: 'date', optional: true })
    expect(v.is(dueOn, '2026-01-15T10:00:00.000Z')).toBe(true)
    expect(v.is(dueOn, null)).toBe(true)
  })
})
