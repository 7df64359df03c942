/**
 * Application configuration, resolved from a flat string environment
 * (`process.env`, a Workers `env`, a parsed `.env`). The framework reads no
 * files: the Node side loads `.env` and passes the merged record here.
 */
import { ConfigError } from './config-error.ts'
import { bool, int, list, oneOf, text } from './env-readers.ts'

export type AppEnvironment = 'development' | 'production' | 'test'
export type JwtAlgorithm = 'HS256' | 'RS256'

export interface AppConfig {
  env: AppEnvironment
  debug: boolean
  port: number
  host: string
  databaseUrl: string | undefined
  databaseAuthToken: string | undefined
  jwtSecret: string | undefined
  jwtTtl: number
  jwtRefreshTtl: number
  jwtAlgorithm: JwtAlgorithm
  jwtIssuer: string | undefined
  jwtAudience: string | undefined
  corsOrigins: string[]
  tracePrefix: string
  bodyLimit: number
  trustedProxies: string[]
  /** Node's server: the whole request must arrive within this (`REQUEST_TIMEOUT_MS`); 408 after. */
  requestTimeoutMs: number
  apiKey: string | undefined
  /** The raw variables, for application-specific settings. */
  vars: Readonly<Record<string, string | undefined>>
}

export type EnvRecord = Readonly<Record<string, string | undefined>>

export { ConfigError } from './config-error.ts'

/**
 * @example const config = resolveConfig({ APP_ENV: 'production', JWT_SECRET: '...' })
 */
export function resolveConfig(vars: EnvRecord = {}): AppConfig {
  const env = oneOf(vars, 'APP_ENV', ['development', 'production', 'test'] as const, 'development')
  return {
    env,
    debug: bool(vars, 'APP_DEBUG', env === 'development'),
    port: int(vars, 'PORT', 8080, 0, 65535),
    host: text(vars, 'HOST') ?? '127.0.0.1',
    databaseUrl: text(vars, 'DATABASE_URL'),
    databaseAuthToken: text(vars, 'DATABASE_AUTH_TOKEN'),
    jwtSecret: secret(vars, 'JWT_SECRET'),
    jwtTtl: int(vars, 'JWT_TTL', 3600, 1, 31_536_000),
    jwtRefreshTtl: int(vars, 'JWT_REFRESH_TTL', 604_800, 1, 31_536_000),
    jwtAlgorithm: oneOf(vars, 'JWT_ALGORITHM', ['HS256', 'RS256'] as const, 'HS256'),
    jwtIssuer: text(vars, 'JWT_ISSUER'),
    jwtAudience: text(vars, 'JWT_AUDIENCE'),
    corsOrigins: list(vars, 'CORS_ORIGINS'),
    tracePrefix: tracePrefix(vars),
    bodyLimit: int(vars, 'BODY_LIMIT', 1024 * 1024, 1, 1024 * 1024 * 1024),
    trustedProxies: list(vars, 'TRUSTED_PROXIES'),
    requestTimeoutMs: int(vars, 'REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000),
    apiKey: text(vars, 'API_KEY'),
    vars,
  }
}

function secret(vars: EnvRecord, name: string): string | undefined {
  const value = text(vars, name)
  if (value !== undefined && value.length < 32) {
    throw new ConfigError(name, `must be at least 32 characters (got ${value.length})`, 'run `svc key:generate`')
  }
  return value
}

function tracePrefix(vars: EnvRecord): string {
  const value = text(vars, 'TRACE_PREFIX') ?? 'svc'
  if (!/^[A-Za-z][A-Za-z0-9]{0,15}$/.test(value)) {
    throw new ConfigError('TRACE_PREFIX', `expected 1 to 16 letters or digits starting with a letter, got "${value}"`)
  }
  return value
}
