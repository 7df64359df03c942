import { describe, expect, it } from 'vitest'
import { loadOptions } from '../../bench/lib/load-options.ts'
import { serverKey } from '../../bench/lib/processes.ts'
import { comparisons, scenarios, type Scenario } from '../../bench/scenarios.ts'

const plain: Scenario = { name: 'json/x', server: { factory: 'svc' }, path: '/hello', expect: { status: 200 } }

describe('loadOptions (the connections and seconds of one bench window)', () => {
  it('takes the run\'s connections unless the scenario sets its own', () => {
    expect(loadOptions(plain, 10, 2)).toEqual({ connections: 10, duration: 2 })
    expect(loadOptions({ ...plain, connections: 50 }, 10, 2)).toEqual({ connections: 50, duration: 2 })
  })

  it('caps a slow scenario and stretches its window', () => {
    const slow: Scenario = { ...plain, slow: { minDuration: 8, connections: 2 } }
    expect(loadOptions(slow, 10, 2)).toEqual({ connections: 2, duration: 8 })
    expect(loadOptions({ ...slow, connections: 1 }, 10, 9)).toEqual({ connections: 1, duration: 9 })
  })
})

describe('issue 18\'s JSON targets at 10 and at 50 connections, in one run', () => {
  const byName = new Map(scenarios.map((s) => [s.name, s]))
  // The JSON route's targets: judged (a minimum ratio) against the peer with a trace header.
  const judged = comparisons.filter((c) => /^json(50)?\/hono-trace-header$/.test(c.peer) && c.minRatio !== undefined)

  it('judges the traced and the untraced route at both counts, each pair at one count', () => {
    const counts = judged.map((c) => {
      const subject = byName.get(c.subject)!
      const peer = byName.get(c.peer)!
      expect(subject.connections).toBe(peer.connections)
      return `${subject.traced === true ? 'traced' : 'untraced'}@${subject.connections ?? 'run'}`
    })
    expect(counts.sort()).toEqual(['traced@50', 'traced@run', 'untraced@50', 'untraced@run'])
    for (const c of judged) expect(c.p99NoWorse).toBe(true)
  })

  it('runs the 50-connection scenarios on server processes of their own, apart from the 10-connection ones', () => {
    const keys = (group: string) => new Set(scenarios.filter((s) => s.name.startsWith(`${group}/`)).map((s) => serverKey(s.server)))
    const fifty = keys('json50')
    expect(fifty.size).toBe(3)
    for (const key of [...keys('json'), ...keys('trace'), ...keys('param')]) expect(fifty.has(key)).toBe(false)
  })

  it("runs the tracing scenarios of the JSON route on server processes apart from the 3-query route's", () => {
    const keysOf = (path: string) => new Set(scenarios.filter((s) => s.name.startsWith('trace/') && s.path === path).map((s) => serverKey(s.server)))
    const json = keysOf('/hello')
    const queries = keysOf('/three')
    expect(json.size).toBeGreaterThanOrEqual(2)
    expect(queries.size).toBe(2)
    for (const key of queries) expect(json.has(key)).toBe(false)
  })
})
