import { describe, expect, it } from 'vitest'
import { rotated } from '../../bench/lib/rounds.ts'

describe('rotated (the order of scenarios in a bench round)', () => {
  it('starts each round one scenario later and keeps every scenario once', () => {
    const scenarios = ['a', 'b', 'c']
    expect([0, 1, 2, 3].map((round) => rotated(scenarios, round).join(''))).toEqual(['abc', 'bca', 'cab', 'abc'])
  })

  it('keeps each scenario next to the same neighbours, the last wrapping to the first', () => {
    expect(rotated(['peer', 'subject', 'other'], 2)).toEqual(['other', 'peer', 'subject'])
  })

  it('takes any offset and an empty list', () => {
    expect(rotated(['a', 'b'], -1)).toEqual(['b', 'a'])
    expect(rotated([], 3)).toEqual([])
  })
})
