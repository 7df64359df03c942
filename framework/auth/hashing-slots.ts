/**
 * Bounds the password hashes in flight. Each argon2id hash holds its memory
 * cost (19 MiB by default) until it ends, so unbounded concurrency is
 * unbounded memory (200 registrations at once took a process to 4 GB). At
 * most `concurrency` hashes run; at most `queue` more wait for a slot, first
 * come first served; beyond that the request is answered at once with 503 and
 * a `Retry-After` estimated from recent hashing times.
 */
import { ServiceBusyError } from '../http/service-busy.ts'
import type { PasswordHasher } from './passwords.ts'

export interface HashingLimits {
  /** Hashes running at once. */
  concurrency: number
  /** Requests waiting for a slot before the next one is refused. */
  queue: number
}

/** What `/health/ready` shows under `checks.password_hashing`. */
export interface HashingStats extends HashingLimits {
  running: number
  waiting: number
  /** Requests answered 503 because the queue was full, since start. */
  refused: number
}

export interface LimitedHasher extends PasswordHasher {
  stats(): HashingStats
}

/** The same hasher, its hashing and verifying (the dummy one too) bounded by `limits`. */
export function limitHashing(hasher: PasswordHasher, limits: HashingLimits): LimitedHasher {
  const slots = new HashingSlots(limits)
  return {
    params: hasher.params,
    hash: (password) => slots.run(() => hasher.hash(password)),
    verify: (stored, password) => slots.run(() => hasher.verify(stored, password)),
    needsRehash: (stored) => hasher.needsRehash(stored),
    verifyDummy: (password) => slots.run(() => hasher.verifyDummy(password)),
    stats: () => slots.stats(),
  }
}

class HashingSlots {
  private running = 0
  private refused = 0
  private readonly waiting: Array<() => void> = []
  /** Moving average of one hash's duration, for Retry-After. */
  private averageMs = 250

  constructor(private readonly limits: HashingLimits) {
    if (!(limits.concurrency >= 1) || !(limits.queue >= 0)) throw new Error(`invalid hashing limits: ${JSON.stringify(limits)}`)
  }

  stats(): HashingStats {
    return { ...this.limits, running: this.running, waiting: this.waiting.length, refused: this.refused }
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running < this.limits.concurrency) {
      this.running++
    } else {
      if (this.waiting.length >= this.limits.queue) {
        this.refused++
        // Time for the queue ahead to drain, slot by slot.
        const drainMs = ((this.waiting.length + this.running) / this.limits.concurrency) * this.averageMs
        throw new ServiceBusyError(drainMs / 1000, new Error(`${this.running} password hashes running and ${this.waiting.length} waiting`))
      }
      // The slot is handed over by the hash that ends (running stays the same).
      await new Promise<void>((resolve) => this.waiting.push(resolve))
    }
    const started = performance.now()
    try {
      return await work()
    } finally {
      this.averageMs = 0.8 * this.averageMs + 0.2 * (performance.now() - started)
      const next = this.waiting.shift()
      if (next === undefined) this.running--
      else next()
    }
  }
}
