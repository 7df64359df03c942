/**
 * `make:lang <locale> validation` writes a message for every rule svc's
 * default formatter words: a rule the file leaves out stays in English in a
 * translated app.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import langTemplate from '../../cli/generators/templates/lang.ts'
import type { Names } from '../../cli/generators/names.ts'

describe('make:lang validation', () => {
  it('lists every rule the default validation messages name', () => {
    const source = readFileSync(new URL('../../framework/validation/messages.ts', import.meta.url), 'utf8')
    const rules = [...source.matchAll(/case '(\w+)':/g)].map((match) => match[1]!)
    expect(rules).toContain('not_allowed')
    const file = langTemplate.render({ kind: 'lang', names: {} as Names, options: { locale: 'fr', file: 'validation' } })
    const keys = [...file.contents.matchAll(/^ {2}(\w+): '/gm)].map((match) => match[1]!)
    expect(rules.filter((rule) => !keys.includes(rule))).toEqual([])
  })
})
