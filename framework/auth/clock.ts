/** Time as the auth code sees it: injectable, so tests move it instead of sleeping. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number
}

export const systemClock: Clock = { now: () => Date.now() }
