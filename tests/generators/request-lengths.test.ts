/**
 * A generated request schema counts a text's length in characters (code
 * points), as the API description's `maxLength` (JSON Schema) counts it and
 * as its message says: with valibot's `v.maxLength`, 200 emoji were "greater
 * than 255 characters" while the description accepted them.
 */
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import * as svc from 'svc'
import { requestSchema, type Field } from '../../cli/generators/fields.ts'

/** The schema a generated request file holds for `field`, evaluated with what the file imports. */
function generated(field: Field): v.GenericSchema {
  const code = requestSchema(field)
  return new Function('v', 'svc', `const { maxChars, visibleText, withoutNul, utcTimestamp } = svc; return ${code}`)(v, svc) as v.GenericSchema
}

describe('generated request lengths', () => {
  it('a string field takes 255 characters whatever their UTF-16 length, and refuses 256 in svc wording', async () => {
    const name = v.object({ name: generated({ name: 'name', type: 'string', optional: false }) })
    expect((await svc.checkWith(name, { name: '👍'.repeat(255) })).ok).toBe(true)
    expect(await svc.checkWith(name, { name: '👍'.repeat(256) })).toEqual({ ok: false, errors: { name: ['The name field must not be greater than 255 characters.'] } })
    const note = v.object({ note: generated({ name: 'note', type: 'text', optional: true }) })
    expect((await svc.checkWith(note, { note: '𝄞'.repeat(65535) })).ok).toBe(true)
  })
})
