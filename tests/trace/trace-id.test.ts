import { describe, expect, it } from 'vitest'
import { createTraceId, TRACE_ID_PATTERN } from 'svc/trace'

describe('createTraceId', () => {
  it('makes `<prefix>_<32 hex>` ids, all different, past several refills of its random pool (256 ids each)', () => {
    const ids = Array.from({ length: 1000 }, () => createTraceId('svc'))
    for (const id of ids) {
      expect(id).toMatch(TRACE_ID_PATTERN)
      expect(id).toMatch(/^svc_[0-9a-f]{32}$/)
    }
    expect(new Set(ids).size).toBe(ids.length)
  })

  it('keeps each prefix to its own ids when prefixes alternate', () => {
    const a: string[] = []
    const b: string[] = []
    for (let i = 0; i < 600; i++) {
      a.push(createTraceId('api'))
      b.push(createTraceId('Billing2'))
    }
    expect(a.every((id) => /^api_[0-9a-f]{32}$/.test(id))).toBe(true)
    expect(b.every((id) => /^Billing2_[0-9a-f]{32}$/.test(id))).toBe(true)
    expect(new Set([...a, ...b].map((id) => id.slice(id.indexOf('_') + 1))).size).toBe(1200)
  })

  it('keeps a prefix outside ASCII whole (createTraceId is public; TRACE_PREFIX itself is ASCII)', () => {
    const ids = Array.from({ length: 40 }, () => createTraceId('trâce'))
    for (const id of ids) expect(id).toMatch(/^trâce_[0-9a-f]{32}$/)
  })

  it('draws every hex digit in every position (random bits, not a counter)', () => {
    const ids = Array.from({ length: 2048 }, () => createTraceId('t').slice(2))
    for (const position of [0, 15, 31]) {
      const digits = new Set(ids.map((id) => id[position]))
      expect(digits.size, `position ${position}`).toBe(16)
    }
  })
})
