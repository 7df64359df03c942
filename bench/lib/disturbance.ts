/**
 * What else had the bench's CPUs while a window was measured. On a shared
 * virtual machine the hypervisor now and then gives a guest's CPU to another
 * guest (steal time): a window that loses a tenth of its CPU reads a tenth
 * slower, and its p99 holds the stalls, whatever the server did. Another
 * process on the server's CPU does the same from inside. Both are read from
 * /proc/stat (Linux); where it is missing nothing is known, and every window
 * is kept as measured.
 */
import { readFileSync } from 'node:fs'
import { numberFlag } from './flags.ts'

/** /proc/stat counts USER_HZ ticks: 100 a second on every Linux that Node runs on. */
const MICROSECONDS_PER_TICK = 10_000

export interface CpuTicks {
  /** user + nice + system: work done by processes on this CPU. */
  work: number
  /** Time the hypervisor ran something else while this CPU had work. */
  steal: number
  total: number
}

/** Every CPU's ticks so far, by CPU number; undefined where /proc/stat cannot be read. */
export function readCpuTicks(): Map<number, CpuTicks> | undefined {
  let text: string
  try {
    text = readFileSync('/proc/stat', 'utf8')
  } catch {
    return undefined
  }
  const cpus = new Map<number, CpuTicks>()
  for (const line of text.split('\n')) {
    const match = /^cpu(\d+)\s+(.*)$/.exec(line)
    if (match === null) continue
    const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = match[2]!.trim().split(/\s+/).map(Number)
    cpus.set(Number(match[1]), { work: user + nice + system, steal, total: user + nice + system + idle + iowait + irq + softirq + steal })
  }
  return cpus
}

/** The CPUs a bench run pins: the server's and the load generator's. */
export interface WatchedCpus {
  server: number
  load: number
}

export interface Disturbance {
  /** The larger share of the server's or the load generator's CPU that the hypervisor gave to another guest. */
  steal: number
  /** The share of the server's CPU used by processes other than the server. */
  others: number
}

/** What took the watched CPUs between two readings, given the server's own CPU time meanwhile (microseconds). */
export function disturbanceBetween(before: Map<number, CpuTicks>, after: Map<number, CpuTicks>, cpus: WatchedCpus, serverMicroseconds: number): Disturbance | undefined {
  const delta = (cpu: number) => {
    const a = before.get(cpu)
    const b = after.get(cpu)
    if (a === undefined || b === undefined || b.total <= a.total) return undefined
    return { work: b.work - a.work, steal: b.steal - a.steal, total: b.total - a.total }
  }
  const server = delta(cpus.server)
  const load = delta(cpus.load)
  if (server === undefined || load === undefined) return undefined
  const othersMicroseconds = Math.max(0, server.work * MICROSECONDS_PER_TICK - serverMicroseconds)
  return {
    steal: Math.max(server.steal / server.total, load.steal / load.total),
    others: othersMicroseconds / (server.total * MICROSECONDS_PER_TICK),
  }
}

/** The most of each that a kept window may have had. */
export interface DisturbanceLimits {
  steal: number
  others: number
  /** Times a disturbed window is measured again before it is kept anyway (and counted as such). */
  retries: number
}

export function isDisturbed(disturbance: Disturbance | undefined, limits: DisturbanceLimits): boolean {
  return disturbance !== undefined && (disturbance.steal > limits.steal || disturbance.others > limits.others)
}

/** How many measured windows a run kept, measured again, and kept although still disturbed. */
export interface WindowCounts {
  kept: number
  remeasured: number
  keptDisturbed: number
}

export function newWindowCounts(): WindowCounts {
  return { kept: 0, remeasured: 0, keptDisturbed: 0 }
}

/** The run's line on disturbed windows, for the report. */
export function describeWindows({ kept, remeasured, keptDisturbed }: WindowCounts, limits: DisturbanceLimits): string {
  const percent = (share: number) => `${+(share * 100).toFixed(1)} %`
  return (
    `Disturbed windows: ${remeasured} measured again (steal above ${percent(limits.steal)} of a bench CPU, or other processes above ${percent(limits.others)} of the server's CPU)` +
    `; ${kept} kept, ${keptDisturbed === 0 ? 'none of them disturbed' : `${keptDisturbed} still disturbed after ${limits.retries} tries`}`
  )
}

/** One line for the log: what a window lost, in percent. */
export function describeDisturbance(disturbance: Disturbance): string {
  return `steal ${(disturbance.steal * 100).toFixed(1)} %, other processes ${(disturbance.others * 100).toFixed(1)} % of the server's CPU`
}

/** The command-line options that set the limits, shared by `npm run bench` and `npm run bench:ab`. */
export const DISTURBANCE_OPTIONS = {
  'max-steal': { type: 'string', default: '2' },
  'max-others': { type: 'string', default: '5' },
  retries: { type: 'string', default: '3' },
} as const

export const DISTURBANCE_USAGE = '[--max-steal percent] [--max-others percent] [--retries n]'

/** The limits from those options' values (percentages on the command line). */
export function disturbanceLimits(values: { 'max-steal'?: string; 'max-others'?: string; retries?: string }): DisturbanceLimits {
  return {
    steal: numberFlag('max-steal', values['max-steal'], 'non-negative') / 100,
    others: numberFlag('max-others', values['max-others'], 'non-negative') / 100,
    retries: Math.round(numberFlag('retries', values.retries, 'non-negative')),
  }
}
