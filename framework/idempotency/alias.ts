/**
 * The `idempotent` alias (built into every app): `idempotent` requires the
 * Idempotency-Key header, `idempotent:optional` lets a request without it
 * through. `IDEMPOTENCY_TTL_HOURS` (24) and `IDEMPOTENCY_LOCK_SECONDS` (60)
 * set how long keys and in-flight locks last.
 */
import { int } from '../config/env-readers.ts'
import type { EnvRecord } from '../config/config.ts'
import type { MiddlewareFactory } from '../middleware/aliases.ts'
import { idempotent } from './index.ts'

/** `IDEMPOTENCY_TTL_HOURS` and `IDEMPOTENCY_LOCK_SECONDS`, in milliseconds (a bad value is a ConfigError). */
export function resolveIdempotencySettings(vars: EnvRecord): { ttlMs: number; lockTimeoutMs: number } {
  return {
    ttlMs: int(vars, 'IDEMPOTENCY_TTL_HOURS', 24, 1, 24 * 365) * 3_600_000,
    lockTimeoutMs: int(vars, 'IDEMPOTENCY_LOCK_SECONDS', 60, 1, 86_400) * 1000,
  }
}

export const idempotentAlias: MiddlewareFactory = (args, { config }) => {
  const [mode, ...rest] = args
  if (rest.length > 0 || (mode !== undefined && mode !== 'optional')) {
    throw new Error(`expected "idempotent" or "idempotent:optional", got arguments ${args.join(',')}`)
  }
  return idempotent({ required: mode !== 'optional', ...resolveIdempotencySettings(config.vars) })
}
