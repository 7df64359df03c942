import { AUTH_MIGRATION_SOURCES } from '../../project/migration-file.ts'
import { defineCommand } from '../../command/define.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { projectFor } from '../../project/project.ts'
import { printMigrationFiles, writeMigrationFiles } from '../../project/write-migrations.ts'

/**
 * Authentication (register, login, refresh, logout, me, verify-email,
 * forgot/reset password) is built in; what an app needs is its tables. This
 * writes the auth migrations into database/migrations/ (users,
 * refresh_tokens, one_time_tokens, security_events, rate_limits).
 */
export default defineCommand({
  meta: {
    name: 'make:auth',
    group: 'Generators',
    description: 'Auth migrations: users, refresh tokens, one-time tokens, security events, rate limits',
    json: ['MakeMigrationsJson'],
  },
  args: {
    ...cwdArg,
    ...jsonArg,
    force: { type: 'boolean', description: 'Overwrite auth migrations the app already has' },
  },
  async run({ args, io, json }) {
    // Dated now (one second apart, in order), as every generated migration: they sort after what the app has applied.
    const outcome = await writeMigrationFiles(projectFor(io, args.cwd, { forGenerators: true }), AUTH_MIGRATION_SOURCES, 'make:auth', args.force, new Date())
    if (args.json) return json(outcome.json)
    printMigrationFiles(io, outcome, 'svc migrate (the routes are under /api/auth: svc route:list; see docs/authentication.md)')
  },
})
