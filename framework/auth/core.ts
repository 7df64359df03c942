/** What every part of auth shares within one app: settings, keys, clock, hasher, mailer, throttle store. */
import type { AppConfig } from '../config/config.ts'
import type { Database } from '../database/database.ts'
import type { Mailer } from '../mail/index.ts'
import type { ThrottleStore } from '../middleware/throttle/store.ts'
import type { Clock } from './clock.ts'
import type { Lockout } from './lockout.ts'
import type { SigningKeys } from './keys.ts'
import type { PasswordHasher } from './passwords.ts'
import type { AuthSettings } from './settings.ts'
import type { TokenService } from './tokens.ts'

export interface AuthCore {
  config: AppConfig
  /** The app's database (untraced); requests use `c.db`. */
  database: Database | undefined
  settings: AuthSettings
  clock: Clock
  keys: () => Promise<SigningKeys>
  tokens: TokenService
  hasher: PasswordHasher
  mailer: Mailer
  throttleStore: ThrottleStore
  lockout: Lockout
}

/** The clock's time as stored in the auth tables (ISO 8601 UTC). */
export function isoAt(ms: number): string {
  return new Date(ms).toISOString()
}
