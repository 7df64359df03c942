import { describe, expect, it } from 'vitest'
import { FlagError, numberFlag, parseFlags } from '../../bench/lib/flags.ts'

describe('bench flags', () => {
  it('a misspelt flag is a FlagError naming it, not a stack trace', () => {
    expect(() => parseFlags({ args: ['--rewram', '1'], options: { rewarm: { type: 'string' } } })).toThrow(FlagError)
    expect(() => parseFlags({ args: ['--rewram', '1'], options: { rewarm: { type: 'string' } } })).toThrow(/--rewram/)
    expect(parseFlags({ args: ['--rewarm', '1'], options: { rewarm: { type: 'string' } } }).values.rewarm).toBe('1')
  })

  it('a value that is not a number in range is refused, never read as nothing', () => {
    for (const raw of ['abc', '', ' ', undefined, 'NaN', 'Infinity', '-1']) {
      expect(() => numberFlag('rewarm', raw, 'non-negative')).toThrow(`--rewarm must be a non-negative number, got "${raw}"`)
    }
    expect(() => numberFlag('rounds', '0', 'positive')).toThrow(FlagError)
    expect(numberFlag('rewarm', '0', 'non-negative')).toBe(0)
    expect(numberFlag('rewarm', '0.5', 'non-negative')).toBe(0.5)
    expect(numberFlag('rounds', '3', 'positive')).toBe(3)
  })
})
