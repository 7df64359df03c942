/**
 * Rate limiting: `throttle({ maxAttempts, decayMinutes })`, and the alias
 * `throttle:<max_attempts>,<decay_minutes>` (or `r.get(...).throttle(60, 1)`).
 * Fixed windows, counted per route and per client: the user when the request
 * is authenticated (put `auth` before `throttle`), else the client IP. Over
 * the limit: 429 with `Retry-After`; every answer carries `RateLimit-Limit`,
 * `RateLimit-Remaining` and `RateLimit-Reset`.
 *
 * @example
 * r.post('/reports', createReport).middleware('auth', 'throttle:5,1')
 * r.get('/search', search).middleware(throttle({ maxAttempts: 100, decayMinutes: 1440 }))
 */
import type { Context } from '../../context/context.ts'
import { HttpError } from '../../http/http-error.ts'
import { withHeaders } from '../../http/response.ts'
import type { Middleware } from '../../router/types.ts'
import type { Clock } from '../../auth/clock.ts'
import { memoryThrottleStore } from './memory-store.ts'
import type { ThrottleStore } from './store.ts'

export type { ThrottleHit, ThrottleStore } from './store.ts'
export { memoryThrottleStore } from './memory-store.ts'
export { databaseThrottleStore } from './database-store.ts'

export interface ThrottleOptions {
  maxAttempts: number
  decayMinutes: number
  /** Where the counters live; a fresh in-memory store by default. */
  store?: ThrottleStore
  /** Who is counted; by default the user id when authenticated, else the IP. */
  key?: (c: Context) => string
  /** Counters are per route by default; set a name to share one limit between routes. */
  name?: string
  clock?: Clock
}

const defaults = { store: undefined, key: clientKey, name: undefined, clock: { now: () => Date.now() } }

export function throttle(options: ThrottleOptions): Middleware {
  const { maxAttempts, decayMinutes, key, name, clock, store: given } = { ...defaults, ...options }
  if (!Number.isSafeInteger(maxAttempts) || maxAttempts < 1) throw new Error(`throttle: max attempts must be a whole number from 1, got ${maxAttempts}`)
  if (!Number.isSafeInteger(decayMinutes) || decayMinutes < 1) throw new Error(`throttle: decay minutes must be a whole number from 1, got ${decayMinutes}`)
  const store = given ?? memoryThrottleStore()
  const windowMs = decayMinutes * 60_000
  const limit = String(maxAttempts)

  return async function throttleMiddleware(c, next) {
    const scope = name ?? (c.route === undefined ? c.path : `${c.route.method} ${c.route.path}`)
    const now = clock.now()
    const hit = await store.hit(`throttle:${maxAttempts},${decayMinutes}:${scope}:${key(c)}`, windowMs, now)
    const reset = String(Math.max(1, Math.ceil((hit.resetAt - now) / 1000)))
    const headers = {
      'RateLimit-Limit': limit,
      'RateLimit-Remaining': String(Math.max(0, maxAttempts - hit.count)),
      'RateLimit-Reset': reset,
    }
    if (hit.count > maxAttempts) {
      throw new HttpError(429, 'Too Many Requests', { headers: { ...headers, 'Retry-After': reset } })
    }
    return withHeaders(await next(), headers)
  }
}

/** The default key: `user:<id>` when authenticated, else `ip:<address>`. */
export function clientKey(c: Context): string {
  return c.user !== undefined ? `user:${c.user.id}` : `ip:${c.ip ?? 'unknown'}`
}

/** Parses the alias arguments (`throttle:60,1` => `['60', '1']`). */
export function parseThrottleArgs(args: string[]): { maxAttempts: number; decayMinutes: number } {
  if (args.length !== 2 || !args.every((arg) => /^\d+$/.test(arg)) || args.some((arg) => Number(arg) < 1)) {
    throw new Error(`expected throttle:<max_attempts>,<decay_minutes> with two whole numbers from 1, got "${args.join(',')}"`)
  }
  return { maxAttempts: Number(args[0]), decayMinutes: Number(args[1]) }
}
