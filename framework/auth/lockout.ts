/**
 * Account lockout, kept per email address (lower-cased) in one store for
 * every address, whether an account has it or not: the same counting, the
 * same lock, the same `Retry-After`, the same persistence. After `attempts`
 * failures within `minutes`, the address is locked for `minutes` from the
 * failure that reached the threshold; the count then starts again from zero.
 */
import type { ThrottleStore } from '../middleware/throttle/store.ts'

export interface LockoutSettings {
  attempts: number
  minutes: number
}

export interface LoginFailure {
  /** Failures counted in the current window, this one included. */
  attempts: number
  /** When this failure locked the address: the lock's end (ms since the epoch). */
  lockedUntil: number | undefined
}

export interface Lockout {
  /** The end of the lock on `email` (ms since the epoch), or undefined when it is not locked. */
  lockedUntil(email: string, now: number): Promise<number | undefined>
  /** Counts one failed login on `email`. */
  fail(email: string, now: number): Promise<LoginFailure>
  /** A successful login or a password reset: no failures, no lock. */
  clear(email: string, now: number): Promise<void>
}

export function createLockout(store: ThrottleStore, settings: LockoutSettings): Lockout {
  const windowMs = settings.minutes * 60_000
  const failures = (email: string) => `auth-login-failures:${email.toLowerCase()}`
  const lock = (email: string) => `auth-login-lock:${email.toLowerCase()}`

  return {
    async lockedUntil(email, now) {
      return (await store.peek(lock(email), now))?.resetAt
    },
    async fail(email, now) {
      const hit = await store.hit(failures(email), windowMs, now)
      if (hit.count < settings.attempts) return { attempts: hit.count, lockedUntil: undefined }
      await store.reset(failures(email))
      const locked = await store.hit(lock(email), windowMs, now)
      return { attempts: hit.count, lockedUntil: locked.resetAt }
    },
    async clear(email, now) {
      // Most logins follow no failure: look before writing.
      if ((await store.peek(failures(email), now)) !== undefined) await store.reset(failures(email))
      if ((await store.peek(lock(email), now)) !== undefined) await store.reset(lock(email))
    },
  }
}
