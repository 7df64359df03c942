import { AUTH_MIGRATION_SOURCES } from '../../project/migration-file.ts'
import { migrationTableCommand } from '../../project/migration-command.ts'

/**
 * Authentication (register, login, refresh, logout, me, verify-email,
 * forgot/reset password) is built in; what an app needs is its tables. This
 * writes the auth migrations into database/migrations/ (users,
 * refresh_tokens, one_time_tokens, security_events, rate_limits).
 */
export default migrationTableCommand({
  name: 'make:auth',
  description: 'Auth migrations: users, refresh tokens, one-time tokens, security events, rate limits',
  sources: AUTH_MIGRATION_SOURCES,
  next: 'svc migrate. The routes are under /api/auth (svc route:list); see docs/authentication.md.',
})
