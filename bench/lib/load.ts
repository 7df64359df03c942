/**
 * Runs autocannon (in this process, the load generator) against one
 * scenario and measures each response's latency itself, in microseconds'
 * resolution (autocannon's own histogram rounds to whole milliseconds).
 */
import autocannon from 'autocannon'
import type { Scenario } from '../scenarios.ts'
import { describeDisturbance, disturbanceBetween, isDisturbed, readCpuTicks, type Disturbance, type DisturbanceLimits, type WatchedCpus, type WindowCounts } from './disturbance.ts'
import { quantileSorted } from './stats.ts'

/** In a scenario's body: replaced by a fresh id on every request (e.g. a new email for each registration). */
export const ID_PLACEHOLDER = '[<id>]'

export interface LoadOptions {
  connections: number
  /** Seconds. */
  duration: number
}

export interface Sample {
  rps: number
  p50: number
  p99: number
  /** Responses that were not 2xx, and socket errors or timeouts. */
  non2xx: number
  errors: number
  /** Responses received. */
  requests: number
  /** The server process's CPU time per response, in microseconds (filled by the caller). */
  cpuPerRequest?: number
  /** What else had the bench's CPUs meanwhile, where that can be read (measureServer with the CPUs it pins). */
  disturbance?: Disturbance
}

export function runLoad(url: string, scenario: Scenario, serverHeaders: Record<string, string>, options: LoadOptions): Promise<Sample> {
  let latencies = new Float64Array(1 << 16)
  let count = 0
  let non2xx = 0
  const started = process.hrtime.bigint()
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: `${url}${scenario.path}`,
        method: (scenario.method ?? 'GET') as 'GET',
        headers: { ...serverHeaders, ...scenario.headers },
        body: scenario.body,
        idReplacement: scenario.body?.includes(ID_PLACEHOLDER) ?? false,
        connections: options.connections,
        duration: options.duration,
        pipelining: 1,
      },
      (error, result) => {
        if (error) return reject(error)
        const elapsed = Number(process.hrtime.bigint() - started) / 1e9
        const sorted = latencies.subarray(0, count).sort()
        resolve({
          rps: (count + non2xx) / elapsed,
          p50: quantileSorted(sorted, 0.5),
          p99: quantileSorted(sorted, 0.99),
          non2xx,
          errors: result.errors + result.timeouts,
          requests: count + non2xx,
        })
      },
    )
    instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
      if (statusCode < 200 || statusCode >= 300) {
        non2xx++
        return
      }
      if (count === latencies.length) {
        const grown = new Float64Array(latencies.length * 2)
        grown.set(latencies)
        latencies = grown
      }
      latencies[count++] = responseTime
    })
  })
}

/** A server as the load is measured against it: its address and its CPU time so far (microseconds). */
export interface MeasuredServer {
  url: string
  headers: Record<string, string>
  cpuTime(): Promise<number>
}

/** One run of load against a server, with the server's CPU time per response and, given the pinned CPUs, what else had them. */
export async function measureServer(server: MeasuredServer, scenario: Scenario, options: LoadOptions, watch?: WatchedCpus): Promise<Sample> {
  const cpuBefore = await server.cpuTime()
  const ticksBefore = watch === undefined ? undefined : readCpuTicks()
  const sample = await runLoad(server.url, scenario, server.headers, options)
  const ticksAfter = ticksBefore === undefined ? undefined : readCpuTicks()
  const serverMicroseconds = (await server.cpuTime()) - cpuBefore
  // The requests still in flight when autocannon stops are few beside the thousands counted.
  sample.cpuPerRequest = serverMicroseconds / Math.max(1, sample.requests)
  if (watch !== undefined && ticksBefore !== undefined && ticksAfter !== undefined) {
    const disturbance = disturbanceBetween(ticksBefore, ticksAfter, watch, serverMicroseconds)
    if (disturbance !== undefined) sample.disturbance = disturbance
  }
  return sample
}

/**
 * Measures a window again while another guest or process had the CPUs
 * beyond the limits, up to `limits.retries` times; then keeps the last one
 * and counts it. Without limits (or where /proc/stat is not read), the
 * first window is kept.
 */
export async function measureUndisturbed(
  measureOnce: () => Promise<Sample>,
  limits: DisturbanceLimits | undefined,
  counts: WindowCounts,
  log: (line: string) => void,
): Promise<Sample> {
  for (let attempt = 0; ; attempt++) {
    const sample = await measureOnce()
    const disturbed = limits !== undefined && isDisturbed(sample.disturbance, limits)
    if (!disturbed || attempt >= limits.retries) {
      counts.kept++
      if (disturbed) counts.keptDisturbed++
      return sample
    }
    counts.remeasured++
    log(`  measured again: ${describeDisturbance(sample.disturbance!)} (${Math.round(sample.rps)} req/s, p99 ${sample.p99.toFixed(2)} ms)`)
  }
}
