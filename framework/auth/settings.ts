/**
 * Auth settings read from the app's environment (`config.vars`), beside the
 * JWT values `resolveConfig` already parsed. Every one has a default; a bad
 * value is a ConfigError naming the variable, raised when the app is created.
 */
import { ConfigError, type AppConfig } from '../config/config.ts'
import { int, text } from '../config/env-readers.ts'

export interface PasswordHashParams {
  /** Memory in KiB (OWASP: 19456 = 19 MiB). */
  memoryKib: number
  iterations: number
  parallelism: number
}

export interface AuthSettings {
  password: PasswordHashParams
  /**
   * Password hashes running at once (`PASSWORD_HASH_CONCURRENCY`); undefined:
   * as many as the argon2id implementation says (the CPUs for the native one).
   */
  hashConcurrency: number | undefined
  /** Requests waiting for a hashing slot before 503 (`PASSWORD_HASH_QUEUE`). */
  hashQueue: number
  lockoutAttempts: number
  lockoutMinutes: number
  loginThrottle: { maxAttempts: number; decayMinutes: number }
  /** Registrations per client address (`AUTH_REGISTER_THROTTLE`). */
  registerThrottle: { maxAttempts: number; decayMinutes: number }
  passwordResetTtlMinutes: number
  emailVerificationTtlMinutes: number
  /** Where the links in mails point (`APP_URL`, default `http://HOST:PORT`). */
  appUrl: string
  /** The link in verification mails; `{token}` is replaced (`AUTH_VERIFY_EMAIL_URL`). */
  verifyEmailUrl: string
  /** The link in reset mails; `{token}` and `{email}` are replaced (`AUTH_RESET_PASSWORD_URL`). */
  resetPasswordUrl: string
  throttleStore: 'memory' | 'database'
  /** Verified access tokens remembered per process (`JWT_VERIFY_CACHE_SIZE`, 0 turns it off). */
  verifyCacheSize: number
  /**
   * How long after its rotation a refresh token presented again still gets a
   * new pair instead of revoking its family (`JWT_REFRESH_REUSE_GRACE`,
   * seconds; 0: strict). Two tabs of one SPA refreshing at once present the
   * same token; the loser used to log the user out.
   */
  refreshReuseGraceSeconds: number
}

/**
 * Default reuse grace: none. The contract says a refresh revokes the token it
 * rotated, and a client may rely on that; an app whose clients refresh from
 * several tabs at once sets a few seconds (10 covers a slow network and leaves a
 * stolen token little room; Okta allows 0 to 60 s).
 */
export const DEFAULT_REFRESH_REUSE_GRACE_SECONDS = 0

/** OWASP's first argon2id configuration: m=19 MiB, t=2, p=1. */
export const OWASP_ARGON2ID: PasswordHashParams = { memoryKib: 19_456, iterations: 2, parallelism: 1 }

export function resolveAuthSettings(config: AppConfig): AuthSettings {
  const vars = config.vars
  const appUrl = (
    text(vars, 'APP_URL') ?? `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`
  ).replace(/\/+$/, '')
  const parallelism = int(vars, 'PASSWORD_HASH_PARALLELISM', OWASP_ARGON2ID.parallelism, 1, 16)
  return {
    password: {
      memoryKib: int(vars, 'PASSWORD_HASH_MEMORY_KIB', OWASP_ARGON2ID.memoryKib, 8 * parallelism, 4 * 1024 * 1024),
      iterations: int(vars, 'PASSWORD_HASH_ITERATIONS', OWASP_ARGON2ID.iterations, 1, 100),
      parallelism,
    },
    hashConcurrency: text(vars, 'PASSWORD_HASH_CONCURRENCY') === undefined ? undefined : int(vars, 'PASSWORD_HASH_CONCURRENCY', 1, 1, 1024),
    hashQueue: int(vars, 'PASSWORD_HASH_QUEUE', 32, 0, 100_000),
    lockoutAttempts: int(vars, 'AUTH_LOCKOUT_ATTEMPTS', 5, 1, 1000),
    lockoutMinutes: int(vars, 'AUTH_LOCKOUT_MINUTES', 15, 1, 525_600),
    loginThrottle: pair(vars, 'AUTH_LOGIN_THROTTLE', { maxAttempts: 60, decayMinutes: 1 }),
    registerThrottle: pair(vars, 'AUTH_REGISTER_THROTTLE', { maxAttempts: 10, decayMinutes: 1 }),
    passwordResetTtlMinutes: int(vars, 'AUTH_PASSWORD_RESET_TTL_MINUTES', 60, 1, 10_080),
    emailVerificationTtlMinutes: int(vars, 'AUTH_EMAIL_VERIFICATION_TTL_MINUTES', 1440, 1, 43_200),
    appUrl,
    verifyEmailUrl: text(vars, 'AUTH_VERIFY_EMAIL_URL') ?? `${appUrl}/verify-email?token={token}`,
    resetPasswordUrl: text(vars, 'AUTH_RESET_PASSWORD_URL') ?? `${appUrl}/reset-password?token={token}&email={email}`,
    throttleStore: storeKind(vars),
    verifyCacheSize: int(vars, 'JWT_VERIFY_CACHE_SIZE', 10_000, 0, 1_000_000),
    refreshReuseGraceSeconds: int(vars, 'JWT_REFRESH_REUSE_GRACE', DEFAULT_REFRESH_REUSE_GRACE_SECONDS, 0, 300),
  }
}

type Vars = AppConfig['vars']

function pair(vars: Vars, name: string, fallback: { maxAttempts: number; decayMinutes: number }) {
  const raw = text(vars, name)
  if (raw === undefined) return fallback
  const match = /^(\d+)\s*,\s*(\d+)$/.exec(raw)
  if (match === null || Number(match[1]) < 1 || Number(match[2]) < 1) {
    throw new ConfigError(name, `expected "<max_attempts>,<decay_minutes>" (two whole numbers from 1), got "${raw}"`)
  }
  return { maxAttempts: Number(match[1]), decayMinutes: Number(match[2]) }
}

function storeKind(vars: Vars): 'memory' | 'database' {
  const raw = text(vars, 'THROTTLE_STORE') ?? 'memory'
  if (raw !== 'memory' && raw !== 'database') throw new ConfigError('THROTTLE_STORE', `expected memory or database, got "${raw}"`)
  return raw
}
