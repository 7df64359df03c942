/**
 * Queue settings read from the app's environment (`config.vars`). Every one
 * has a default; a bad value is a ConfigError naming the variable.
 */
import { ConfigError, type AppConfig } from '../config/config.ts'
import { int, oneOf, text } from '../config/env-readers.ts'

export type QueueConnection = 'sync' | 'database' | 'redis'

export interface QueueSettings {
  /** `QUEUE_CONNECTION`: `database` (default), `redis` or `sync`. */
  connection: QueueConnection
  /** `QUEUE_RETRY_AFTER` (seconds, default 90): the lease; a job whose worker died runs again after it. */
  leaseMs: number
  /** `REDIS_URL`, for the redis driver; default `redis://127.0.0.1:6379`. */
  redisUrl: string
  /** `QUEUE_PREFIX`: the prefix of the redis driver's keys; default `svc`. */
  redisPrefix: string
}

export function resolveQueueSettings(config: AppConfig): QueueSettings {
  const vars = config.vars
  const redisUrl = text(vars, 'REDIS_URL') ?? 'redis://127.0.0.1:6379'
  if (!/^rediss?:\/\//.test(redisUrl)) throw new ConfigError('REDIS_URL', `expected redis://host:port or rediss://..., got "${redisUrl}"`)
  const redisPrefix = text(vars, 'QUEUE_PREFIX') ?? 'svc'
  if (!/^[A-Za-z0-9_.-]{1,32}$/.test(redisPrefix)) throw new ConfigError('QUEUE_PREFIX', `expected 1 to 32 letters, digits, '_', '.' or '-', got "${redisPrefix}"`)
  return {
    connection: oneOf(vars, 'QUEUE_CONNECTION', ['database', 'redis', 'sync'] as const, 'database'),
    leaseMs: int(vars, 'QUEUE_RETRY_AFTER', 90, 2, 86_400) * 1000,
    redisUrl,
    redisPrefix,
  }
}
