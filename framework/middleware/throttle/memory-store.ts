/** Throttle counters in this process's memory: right for one process, not for several instances. */
import type { ThrottleHit, ThrottleStore } from './store.ts'

export function memoryThrottleStore(): ThrottleStore {
  const windows = new Map<string, ThrottleHit>()
  let hits = 0

  const sweep = (now: number) => {
    for (const [key, window] of windows) if (window.resetAt <= now) windows.delete(key)
  }

  return {
    name: 'memory',
    async hit(key, windowMs, now) {
      if (++hits % 1000 === 0) sweep(now)
      const current = windows.get(key)
      if (current === undefined || current.resetAt <= now) {
        const fresh = { count: 1, resetAt: now + windowMs }
        windows.set(key, fresh)
        return { ...fresh }
      }
      current.count++
      return { ...current }
    },
    async peek(key, now) {
      const current = windows.get(key)
      return current === undefined || current.resetAt <= now ? undefined : { ...current }
    },
    async reset(key) {
      windows.delete(key)
    },
  }
}
