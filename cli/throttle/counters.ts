/**
 * `svc rate:status`: the throttle counters of the database store (the
 * `rate_limits` table: THROTTLE_STORE=database, and the login lockout), read
 * and cleared from another process. A memory store's counters live inside
 * the serving process: no other process can see them (docs/throttling.md).
 */
import type { InArgs } from '@libsql/client'
import type { Database } from '../../framework/index.ts'
import type { RateCounterJson } from '../contract/devtools.ts'
import { CliError } from '../output/cli-error.ts'

/** `throttle:<max>,<minutes>:<scope>:<client>`, the client being `user:<id>` or `ip:<address>` (an IPv6 address has colons). */
const THROTTLE_KEY = /^throttle:(\d+),(\d+):(.+?):((?:user|ip):.+)$/
const ANY_THROTTLE_KEY = /^throttle:(\d+),(\d+):(.+):([^:]+)$/

export async function throttleCounters(db: Database, now: number): Promise<RateCounterJson[]> {
  const result = await query(db, 'select key, hits, reset_at from rate_limits where reset_at > ? order by reset_at, key', [now])
  return result.rows.map((row) => {
    const hits = Number(row.hits)
    const resetAt = Number(row.reset_at)
    return {
      key: String(row.key),
      hits,
      reset_at: new Date(resetAt).toISOString(),
      resets_in: Math.max(0, Math.ceil((resetAt - now) / 1000)),
      throttle: parseThrottleKey(String(row.key), hits),
    }
  })
}

export function parseThrottleKey(key: string, hits: number): RateCounterJson['throttle'] {
  const match = THROTTLE_KEY.exec(key) ?? ANY_THROTTLE_KEY.exec(key)
  if (match === null) return null
  const maxAttempts = Number(match[1])
  return { max_attempts: maxAttempts, decay_minutes: Number(match[2]), scope: match[3]!, client: match[4]!, blocked: hits >= maxAttempts }
}

/** Deletes the counter `key`, or every counter matching it when it has a `*` (any text); returns how many. */
export async function clearCounters(db: Database, key: string): Promise<number> {
  const result = key.includes('*')
    ? await query(db, 'delete from rate_limits where key glob ?', [key.replace(/[[\]?]/g, (special) => `[${special}]`)])
    : await query(db, 'delete from rate_limits where key = ?', [key])
  return result.rowsAffected
}

async function query(db: Database, sql: string, args: InArgs) {
  try {
    return await db.execute(sql, args)
  } catch (error) {
    if (/no such table: rate_limits/.test((error as Error).message)) {
      throw new CliError('E_NO_RATE_LIMITS', "The app's database has no rate_limits table", { hint: 'svc make:auth writes its migration; then svc migrate' })
    }
    throw error
  }
}
