/**
 * Runs autocannon (in this process, the load generator) against one
 * scenario and measures each response's latency itself, in microseconds'
 * resolution (autocannon's own histogram rounds to whole milliseconds).
 */
import autocannon from 'autocannon'
import type { Scenario } from '../scenarios.ts'
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

/** One run of load against a server, with the server's CPU time per response. */
export async function measureServer(server: MeasuredServer, scenario: Scenario, options: LoadOptions): Promise<Sample> {
  const cpuBefore = await server.cpuTime()
  const sample = await runLoad(server.url, scenario, server.headers, options)
  // The requests still in flight when autocannon stops are few beside the thousands counted.
  sample.cpuPerRequest = ((await server.cpuTime()) - cpuBefore) / Math.max(1, sample.requests)
  return sample
}
