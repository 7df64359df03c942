/** The part of autocannon's API the benchmark uses (it ships no types). */
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events'

  interface Options {
    url: string
    method?: string
    headers?: Record<string, string>
    body?: string
    /** Replace `[<id>]` in the body with a fresh random id on every request. */
    idReplacement?: boolean
    connections?: number
    duration?: number
    pipelining?: number
  }

  interface Result {
    errors: number
    timeouts: number
    non2xx: number
    requests: { average: number; total: number }
    latency: { p50: number; p99: number }
  }

  function autocannon(options: Options, callback: (error: Error | null, result: Result) => void): EventEmitter

  export default autocannon
}
