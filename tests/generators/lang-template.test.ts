/**
 * `make:lang <locale> validation` writes a message for every wording svc's
 * default formatter has: a key the file leaves out stays in English in a
 * translated app, and a key that words two cases (a string's length and a
 * list's) is wrong in one of them.
 */
import { readFileSync } from 'node:fs'
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { checkWith, createTranslator, type Messages } from 'svc'
import langTemplate from '../../cli/generators/templates/lang.ts'
import type { Names } from '../../cli/generators/names.ts'

const file = langTemplate.render({ kind: 'lang', names: {} as Names, options: { locale: 'fr', file: 'validation' } })
const entries = Object.fromEntries([...file.contents.matchAll(/^ {2}(\w+): '(.*)',$/gm)].map((match) => [match[1]!, match[2]!.replaceAll("\\'", "'")]))

describe('make:lang validation', () => {
  it('lists every key the default validation messages name', () => {
    const source = readFileSync(new URL('../../framework/validation/messages.ts', import.meta.url), 'utf8')
    const keys = [...source.matchAll(/case '(\w+)':/g)].map((match) => match[1]!)
    expect(keys).toContain('not_allowed')
    expect(keys).toContain('min_length_list')
    expect(keys.filter((key) => entries[key] === undefined)).toEqual([])
  })

  it('words every message as svc does, before it is translated', async () => {
    // The file as written, used as the only locale: each message must read as svc's own English.
    const lang = createTranslator({ fallback: 'fr', locales: { fr: { validation: entries as Messages } } })
    const Body = v.object({
      name: v.pipe(v.string(), v.minLength(3), v.maxLength(5)),
      code: v.pipe(v.string(), v.length(4)),
      tags: v.pipe(v.array(v.string()), v.minLength(2)),
      pair: v.pipe(v.array(v.number()), v.length(2)),
      top: v.pipe(v.array(v.number()), v.maxLength(2)),
      count: v.pipe(v.number(), v.integer(), v.minValue(1)),
      max: v.pipe(v.number(), v.maxValue(9)),
      ratio: v.number(),
      whole: v.pipe(v.number(), v.integer()),
      flag: v.boolean(),
      address: v.object({ city: v.string() }),
      list: v.array(v.string()),
      day: v.pipe(v.string(), v.isoDate()),
      at: v.pipe(v.string(), v.isoTimestamp()),
      email: v.pipe(v.string(), v.email()),
      site: v.pipe(v.string(), v.url()),
      id: v.pipe(v.string(), v.uuid()),
      zip: v.pipe(v.string(), v.regex(/^\d+$/)),
      pin: v.pipe(v.string(), v.digits()),
      status: v.picklist(['a', 'b']),
      missing: v.string(),
      when: v.date(),
    })
    const input = {
      name: 'ab', code: 'abc', tags: ['a'], pair: [1], top: [1, 2, 3], count: 0, max: 10, ratio: 'x', whole: 'x', flag: 'x', address: 'x', list: 'x',
      day: 'x', at: 'x', email: 'x', site: 'x', id: 'x', zip: 'x', pin: 'x', status: 'x', when: 'x',
    }
    const cases: Array<[v.GenericSchema, unknown, 'body' | 'query']> = [
      [Body, input, 'body'],
      [v.object({ name: v.pipe(v.string(), v.maxLength(2)) }), { name: 'abc' }, 'body'],
      [v.strictObject({ a: v.optional(v.string()) }), { b: 1 }, 'body'],
      [Body, [], 'body'],
      [v.object({ page: v.string() }), { page: ['1', '2'] }, 'query'],
      [v.object({ page: v.string() }), 'x', 'query'],
    ]
    for (const [schema, value, source] of cases) {
      const english = await checkWith(schema, value, source)
      const written = await checkWith(schema, value, source, lang.validationMessage)
      expect(english.ok).toBe(false)
      expect(written).toEqual(english)
    }
  })
})
