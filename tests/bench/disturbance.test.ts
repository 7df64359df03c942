import { describe, expect, it } from 'vitest'
import {
  describeWindows,
  disturbanceBetween,
  disturbanceLimits,
  isDisturbed,
  newWindowCounts,
  readCpuTicks,
  type CpuTicks,
  type DisturbanceLimits,
} from '../../bench/lib/disturbance.ts'
import { FlagError } from '../../bench/lib/flags.ts'
import { measureUndisturbed, type Sample } from '../../bench/lib/load.ts'

const ticks = (entries: Array<[number, CpuTicks]>) => new Map(entries)
const cpus = { server: 1, load: 0 }
const limits: DisturbanceLimits = { steal: 0.02, others: 0.05, retries: 2 }

function sample(steal: number, others: number, rps = 1000): Sample {
  return { rps, p50: 0.2, p99: 0.8, non2xx: 0, errors: 0, requests: rps * 2, disturbance: { steal, others } }
}

describe('bench: disturbed windows', () => {
  it('reads steal on either pinned CPU and other processes on the server CPU from /proc/stat ticks', () => {
    const before = ticks([
      [0, { work: 1000, steal: 10, total: 5000 }],
      [1, { work: 2000, steal: 20, total: 6000 }],
    ])
    // 2 s at 100 ticks a second: the server CPU busy 180 ticks (1.8 s), 10 of them stolen; the load CPU 30 stolen.
    const after = ticks([
      [0, { work: 1150, steal: 40, total: 5200 }],
      [1, { work: 2180, steal: 30, total: 6200 }],
    ])
    // The server itself used 1.5 s of the 1.8 s worked on its CPU: 0.3 s was another process's.
    const disturbance = disturbanceBetween(before, after, cpus, 1_500_000)!
    expect(disturbance.steal).toBeCloseTo(30 / 200)
    expect(disturbance.others).toBeCloseTo(0.3 / 2)
    // The server alone on its CPU, nothing stolen: no disturbance.
    const quiet = disturbanceBetween(before, ticks([
      [0, { work: 1150, steal: 10, total: 5200 }],
      [1, { work: 2180, steal: 20, total: 6200 }],
    ]), cpus, 1_800_000)!
    expect(quiet).toEqual({ steal: 0, others: 0 })
  })

  it('knows nothing when a watched CPU is missing or no time passed', () => {
    const before = ticks([[0, { work: 1, steal: 0, total: 10 }]])
    expect(disturbanceBetween(before, before, cpus, 0)).toBeUndefined()
    const both = ticks([
      [0, { work: 1, steal: 0, total: 10 }],
      [1, { work: 1, steal: 0, total: 10 }],
    ])
    expect(disturbanceBetween(both, both, cpus, 0)).toBeUndefined()
  })

  it('reads this machine\'s CPUs where /proc/stat exists', () => {
    const read = readCpuTicks()
    if (process.platform !== 'linux') return expect(read).toBeUndefined()
    expect(read!.size).toBeGreaterThan(0)
    for (const cpu of read!.values()) {
      expect(cpu.total).toBeGreaterThanOrEqual(cpu.work + cpu.steal)
      expect(Number.isFinite(cpu.total)).toBe(true)
    }
  })

  it('measures a disturbed window again, up to the retries, then keeps the last one and counts it', async () => {
    const counts = newWindowCounts()
    const logged: string[] = []
    const queue = [sample(0.1, 0), sample(0, 0.2), sample(0.01, 0.01, 2000)]
    const kept = await measureUndisturbed(async () => queue.shift()!, limits, counts, (line) => logged.push(line))
    expect(kept.rps).toBe(2000)
    expect(counts).toEqual({ kept: 1, remeasured: 2, keptDisturbed: 0 })
    expect(logged[0]).toMatch(/steal 10\.0 %/)
    expect(logged[1]).toMatch(/other processes 20\.0 %/)

    const stormy = [sample(0.5, 0, 1), sample(0.5, 0, 2), sample(0.5, 0, 3), sample(0.5, 0, 4)]
    const last = await measureUndisturbed(async () => stormy.shift()!, limits, counts, () => {})
    expect(last.rps).toBe(3)
    expect(counts).toEqual({ kept: 2, remeasured: 4, keptDisturbed: 1 })
    expect(describeWindows(counts, limits)).toBe(
      "Disturbed windows: 4 measured again (steal above 2 % of a bench CPU, or other processes above 5 % of the server's CPU); 2 kept, 1 still disturbed after 2 tries",
    )
  })

  it('keeps the first window without limits, or where nothing could be read', async () => {
    const counts = newWindowCounts()
    const first = await measureUndisturbed(async () => sample(0.9, 0.9, 7), undefined, counts, () => {})
    expect(first.rps).toBe(7)
    const unread: Sample = { rps: 8, p50: 0, p99: 0, non2xx: 0, errors: 0, requests: 1 }
    expect(isDisturbed(unread.disturbance, limits)).toBe(false)
    expect((await measureUndisturbed(async () => unread, limits, counts, () => {})).rps).toBe(8)
    expect(counts).toEqual({ kept: 2, remeasured: 0, keptDisturbed: 0 })
  })

  it('takes its limits from the command line in percent, refusing what is not a number', () => {
    expect(disturbanceLimits({ 'max-steal': '2', 'max-others': '5', retries: '3' })).toEqual({ steal: 0.02, others: 0.05, retries: 3 })
    expect(() => disturbanceLimits({ 'max-steal': 'lots', 'max-others': '5', retries: '3' })).toThrow(FlagError)
    expect(() => disturbanceLimits({ 'max-steal': '2', 'max-others': '5', retries: '-1' })).toThrow(/--retries/)
  })
})
