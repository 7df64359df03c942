/** What a throttle counts in: one fixed window per key. */
export interface ThrottleHit {
  /** Hits in the current window, this one included. */
  count: number
  /** When the window ends, in milliseconds since the epoch. */
  resetAt: number
}

export interface ThrottleStore {
  readonly name: string
  /** Counts one hit for `key` atomically; a window that ended at or before `now` starts again. */
  hit(key: string, windowMs: number, now: number): Promise<ThrottleHit>
  /** Hits so far in the current window, without counting one. */
  peek(key: string, now: number): Promise<ThrottleHit | undefined>
  /** Forgets the key (its next hit starts a new window). */
  reset(key: string): Promise<void>
}
