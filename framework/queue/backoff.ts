/**
 * How long a failed job waits before its next run: capped exponential
 * backoff with jitter. Without jitter, jobs that failed together (an API
 * down for a minute) retry together and fail together again.
 */

export interface BackoffOptions {
  /** The wait after the first failure, in milliseconds; doubled after each one; default 1000. */
  base?: number
  /** No wait is longer than this; default 300000 (5 minutes). */
  cap?: number
  /**
   * true (default): a random wait between half and all of the computed one
   * ("equal jitter": never shorter than half, so retries stay spaced out).
   */
  jitter?: boolean
}

export const DEFAULT_BACKOFF: Required<BackoffOptions> = { base: 1000, cap: 300_000, jitter: true }

/**
 * The wait before the run after `failures` failed ones (1 after the first).
 * @example backoffDelay(3, { base: 1000, jitter: false }) // 4000
 */
export function backoffDelay(failures: number, options: BackoffOptions = {}, random: () => number = Math.random): number {
  const { base, cap, jitter } = { ...DEFAULT_BACKOFF, ...options }
  const exponent = Math.max(0, Math.min(failures - 1, 52))
  const full = Math.min(cap, base * 2 ** exponent)
  if (!jitter) return Math.round(full)
  return Math.round(full / 2 + random() * (full / 2))
}
