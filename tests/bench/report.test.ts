/**
 * How the benchmark judges a comparison: on the median of the per-round
 * ratios (subject and peer measured seconds apart in each round), with the
 * ratio of the two medians shown beside it. Nothing here is timed.
 */
import { describe, expect, it } from 'vitest'
import { compare, renderMarkdown, summarise } from '../../bench/lib/report.ts'
import type { Sample } from '../../bench/lib/load.ts'
import type { Comparison, Scenario } from '../../bench/scenarios.ts'
import { traceCountsOf, tracesLost } from '../../bench/lib/trace-counts.ts'

const scenario = (name: string): Scenario => ({ name, server: { factory: 'raw' }, path: '/hello', expect: { status: 200 } })
const sample = (rps: number, cpuPerRequest: number): Sample => ({ rps, p50: 0.5, p99: 1, non2xx: 0, errors: 0, requests: rps * 2, cpuPerRequest })

// A machine with slow spells: rounds 2 and 4 are slow for both, the subject costs 10% more in every round.
const peerRounds = [100, 60, 100, 60, 100]
const subjectRounds = [90, 54, 90, 54, 90]
const comparison: Comparison = { label: 'subject vs peer', subject: 'g/subject', peer: 'g/peer', minRatio: 0.85 }

function results() {
  const peer = summarise(scenario('g/peer'), peerRounds.map((rps) => sample(rps, 1e6 / rps)))
  // The subject's slow spell lands on three rounds instead of two: its median comes from a slow round.
  const subject = summarise(scenario('g/subject'), [90, 54, 54, 54, 90].map((rps) => sample(rps, 1e6 / rps)))
  return new Map([
    ['g/peer', peer],
    ['g/subject', subject],
  ])
}

describe('bench comparisons', () => {
  it('judge the median of the per-round ratios, not the ratio of two medians', () => {
    const result = compare(comparison, results())!
    expect(result.roundRatios.map((r) => Number(r.toFixed(2)))).toEqual([0.9, 0.9, 0.54, 0.9, 0.9])
    expect(result.ratio).toBeCloseTo(0.9, 5)
    expect(result.ratioOfMedians).toBeCloseTo(54 / 100, 5)
    expect(result.cpuRatio).toBeCloseTo(1 / 0.9, 5)
    expect(result.met).toBe(true)
  })

  it('fail the target when the rounds say so', () => {
    const peer = summarise(scenario('g/peer'), peerRounds.map((rps) => sample(rps, 10)))
    const subject = summarise(scenario('g/subject'), subjectRounds.map((rps) => sample(rps * 0.9, 12)))
    const result = compare(comparison, new Map([['g/peer', peer], ['g/subject', subject]]))!
    expect(result.ratio).toBeCloseTo(0.81, 5)
    expect(result.met).toBe(false)
  })

  it('fail a CPU target when the subject costs more CPU a request than allowed, whatever its req/s', () => {
    // Same req/s in every round; the subject takes 1.1x the peer's CPU a request.
    const peer = summarise(scenario('g/peer'), peerRounds.map((rps) => sample(rps, 10)))
    const subject = summarise(scenario('g/subject'), peerRounds.map((rps) => sample(rps, 11)))
    const within = compare({ ...comparison, maxCpuRatio: 1.1 }, new Map([['g/peer', peer], ['g/subject', subject]]))!
    const beyond = compare({ ...comparison, maxCpuRatio: 1.0 }, new Map([['g/peer', peer], ['g/subject', subject]]))!
    expect(within.cpuRatio).toBeCloseTo(1.1, 5)
    expect(within.met).toBe(true)
    expect(beyond.met).toBe(false)
    const info = { date: 'd', command: 'npm run bench', machine: 'm', settings: 's', loadBefore: [0, 0, 0], loadAfter: [0, 0, 0] }
    const markdown = renderMarkdown(info, [peer, subject], [beyond], undefined)
    expect(markdown).toContain('| subject vs peer: req/s >= 0.85x, CPU a request <= 1.00x | 1.00x, CPU 1.10x | **NO** |')
  })

  it('print both ratios in the ratios table', () => {
    const result = compare(comparison, results())!
    const info = { date: 'd', command: 'npm run bench', machine: 'm', settings: 's', loadBefore: [0, 0, 0], loadAfter: [0, 0, 0] }
    const markdown = renderMarkdown(info, [...results().values()], [result], undefined)
    expect(markdown).toContain('| subject vs peer | 0.90x | 0.54x | 0.54x to 0.90x |')
    expect(markdown).toContain('| subject vs peer: req/s >= 0.85x | 0.90x | yes |')
  })

  it('judge start-up against the same run\'s node -e 0 (a slow machine slows both)', () => {
    const info = { date: 'd', command: 'npm run bench', machine: 'm', settings: 's', loadBefore: [0, 0, 0], loadAfter: [0, 0, 0] }
    const startup = {
      tool: 'hyperfine',
      results: [
        { command: { name: 'node -e 0', args: [] }, medianMs: 50, minMs: 48, runs: 20 },
        { command: { name: 'svc --version', args: [], targetMs: 100, maxRatioToNode: 1.4 }, medianMs: 65, minMs: 60, runs: 20 },
        { command: { name: 'svc list', args: [], maxRatioToNode: 1.4 }, medianMs: 75, minMs: 70, runs: 20 },
      ],
    }
    const markdown = renderMarkdown(info, [], [], startup)
    expect(markdown).toContain('| `svc --version` median < 100 ms | 65.0 ms | yes |')
    expect(markdown).toContain('| `svc --version` median <= 1.4x `node -e 0` | 1.30x | yes |')
    expect(markdown).toContain('| `svc list` median <= 1.4x `node -e 0` | 1.50x | **NO** |')
    expect(markdown).toContain('| `svc list` | 75.0 | 70.0 | 20 | 1.50x | <= 1.4x |')
  })

  describe('a traced subject', () => {
    const kept = { accepted: 1000, written: 1000, dropped: 0, failed: 0, pending: 0 }
    const traced = (traces: Parameters<typeof tracesLost>[0] | undefined) => {
      const subject = summarise({ ...scenario('g/subject'), traced: true }, peerRounds.map((rps) => sample(rps * 1.2, 10)))
      if (traces !== undefined) subject.traces = traces
      const peer = summarise(scenario('g/peer'), peerRounds.map((rps) => sample(rps, 10)))
      return compare({ ...comparison, minRatio: 1.0 }, new Map([['g/peer', peer], ['g/subject', subject]]))!
    }

    it('meets its target only when its server kept every trace', () => {
      expect(traced(kept).met).toBe(true)
      expect(traced(kept).tracesLost).toBe(0)
      // Faster than the peer, but by dropping traces: not a figure of tracing.
      const dropping = traced({ ...kept, written: 400, dropped: 600, accepted: 400 })
      expect(dropping.ratio).toBeCloseTo(1.2, 5)
      expect(dropping.tracesLost).toBe(600)
      expect(dropping.met).toBe(false)
      expect(traced(undefined).met).toBe(false)
    })

    it('says what was lost in the targets table and lists every traced server\'s counts', () => {
      const info = { date: 'd', command: 'npm run bench', machine: 'm', settings: 's', loadBefore: [0, 0, 0], loadAfter: [0, 0, 0] }
      const result = traced({ ...kept, written: 950, failed: 50 })
      const subject = summarise({ ...scenario('g/subject'), traced: true }, [sample(100, 10)])
      subject.traces = { ...kept, written: 950, failed: 50 }
      const markdown = renderMarkdown(info, [subject], [result], undefined)
      expect(markdown).toContain('| subject vs peer: req/s >= 1.00x | 1.20x, 50 traces lost | **NO** |')
      expect(markdown).toContain('- g/subject: 1,000 accepted, 950 written, 0 dropped, 50 failed')
    })

    it('counts as lost what was dropped, failed, or accepted and neither written nor pending', () => {
      expect(tracesLost(kept)).toBe(0)
      expect(tracesLost({ ...kept, written: 900, pending: 100 })).toBe(0)
      expect(tracesLost({ ...kept, dropped: 7 })).toBe(7)
      expect(tracesLost({ ...kept, written: 990, failed: 10 })).toBe(10)
      expect(tracesLost({ ...kept, written: 990 })).toBe(10)
    })

    it('reads the counts from /health/ready as the traces check shows them', () => {
      const body = JSON.stringify({ success: true, data: { status: 'degraded', checks: { traces: { modes: ['all'], ...kept, dropped: 3, capacity: 5000, high_water: 12 } } } })
      expect(traceCountsOf(body)).toEqual({ ...kept, dropped: 3 })
      expect(traceCountsOf(JSON.stringify({ success: true, data: { status: 'ok', checks: {} } }))).toBeUndefined()
      expect(traceCountsOf('<html>')).toBeUndefined()
    })
  })
})
