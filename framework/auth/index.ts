/**
 * Authentication and access control: JWT access/refresh tokens (jose),
 * argon2id passwords, the `/api/auth/*` routes, the `auth`, `auth:<roles>` and
 * `verified` middleware, lockout, and `requireRole` for controllers.
 * See docs/authentication.md.
 */
export { authPlugin, isAuthPlugin, AUTH_PLUGIN_NAME, type AuthPluginOptions } from './plugin.ts'
export { requireRole, requireVerifiedEmail, bearerToken, type AuthState } from './middleware.ts'
export { systemClock, type Clock } from './clock.ts'
export { createPasswordHasher, parsePhc, portableArgon2id, type Argon2id, type PasswordHasher } from './passwords.ts'
export { limitHashing, type HashingLimits, type HashingStats, type LimitedHasher } from './hashing-slots.ts'
export { resolveAuthSettings, OWASP_ARGON2ID, type AuthSettings, type PasswordHashParams } from './settings.ts'
export { generateRsaKeyPair, PRIVATE_KEY_FILE, PUBLIC_KEY_FILE, type JwtKeyMaterial } from './keys.ts'
export { TokenError, type TokenClaims, type TokenPair, type TokenType } from './tokens.ts'
export { authMigrations, apiKeysMigration } from './schema.ts'
export { userFactory, type AuthUserAttributes, type AuthUserRow } from './user-factory.ts'
