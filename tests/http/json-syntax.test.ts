/**
 * svc's own finder of where a text stops being JSON (the 400's line and
 * column on every engine): it must call invalid exactly what JSON.parse
 * refuses, and where V8 names a position, name the same one.
 */
import { describe, expect, it } from 'vitest'
import { jsonSyntaxErrorAt } from '../../framework/http/json-syntax.ts'

/** V8's position for the text, when its message names one; 'valid' when JSON.parse takes it. */
function v8Verdict(text: string): number | 'valid' | 'no position' {
  try {
    JSON.parse(text)
    return 'valid'
  } catch (error) {
    const position = /\bposition (\d+)/.exec((error as Error).message)
    return position === null ? 'no position' : Number(position[1])
  }
}

describe('jsonSyntaxErrorAt', () => {
  it('finds the first character that is not JSON, or the end for a text that stops early', () => {
    expect(jsonSyntaxErrorAt('{"a": [1, -2.5e+3, true, false, null, {"b": "x\\u00e9\\n"}], "c": {}}')).toBeUndefined()
    expect(jsonSyntaxErrorAt(' 0 ')).toBeUndefined()
    expect(jsonSyntaxErrorAt('{"a":1,}')).toBe(7)
    expect(jsonSyntaxErrorAt('{"a" 1}')).toBe(5)
    expect(jsonSyntaxErrorAt('{a:1}')).toBe(1)
    expect(jsonSyntaxErrorAt("{'a':1}")).toBe(1)
    expect(jsonSyntaxErrorAt('[1,]')).toBe(3)
    expect(jsonSyntaxErrorAt('[tru]')).toBe(4)
    expect(jsonSyntaxErrorAt('"\\x"')).toBe(2)
    expect(jsonSyntaxErrorAt('"\\u12g4"')).toBe(5)
    expect(jsonSyntaxErrorAt('1.')).toBe(2)
    expect(jsonSyntaxErrorAt('-')).toBe(1)
    expect(jsonSyntaxErrorAt('{"a":1} x')).toBe(8)
    expect(jsonSyntaxErrorAt('{"a": [1, 2')).toBe(11)
    expect(jsonSyntaxErrorAt('{"a": "b')).toBe(8)
  })

  it('walks any depth without the stack', () => {
    expect(jsonSyntaxErrorAt('['.repeat(1_000_000))).toBe(1_000_000)
    expect(jsonSyntaxErrorAt('[{"a":'.repeat(200_000) + '1' + '}]'.repeat(200_000))).toBeUndefined()
  })

  it('agrees with JSON.parse on thousands of broken and unbroken texts (seeded mutations)', () => {
    const seeds = ['{"a":[1,-2.5e+3,true,false,null,{"b":"x\\u00e9\\n"}],"c":{}}', '[]', '0', '"s"', ' [ 1 , { } , [ ] ] ', '-0.0E-0']
    const alphabet = ' \t\n\r{}[]:,"\\-+.eE0123456789tfnulrsa\u0001\u00e9u'
    let state = 42
    const random = (below: number) => {
      state = (state * 1103515245 + 12345) & 0x7fffffff
      return state % below
    }
    const disagreements: string[] = []
    for (let round = 0; round < 20_000; round++) {
      let text = seeds[random(seeds.length)]!
      for (let edits = 1 + random(3); edits > 0; edits--) {
        const at = random(text.length + 1)
        const char = alphabet[random(alphabet.length)]!
        const kind = random(3)
        text = text.slice(0, at) + (kind === 1 ? '' : char) + text.slice(kind === 0 ? at : at + 1)
      }
      const v8 = v8Verdict(text)
      const ours = jsonSyntaxErrorAt(text)
      const agrees = v8 === 'valid' ? ours === undefined : ours !== undefined && (typeof v8 !== 'number' || v8 === ours || ours === text.length)
      if (!agrees) disagreements.push(`${JSON.stringify(text)}: JSON.parse ${v8}, svc ${ours}`)
    }
    expect(disagreements).toEqual([])
  })
})
