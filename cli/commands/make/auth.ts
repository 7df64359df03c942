import { defineCommand } from 'citty'
import { AUTH_MIGRATION_SOURCES } from '../../project/migration-file.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { printJson, printLine, printNote } from '../../output/print.ts'
import { findProject } from '../../project/project.ts'
import { writeMigrationFiles, type MakeMigrationsJson } from './_write-migrations.ts'

export type MakeAuthJson = MakeMigrationsJson

/**
 * Authentication (register, login, refresh, logout, me, verify-email,
 * forgot/reset password) is built in; what an app needs is its tables. This
 * writes the auth migrations into database/migrations/ (users,
 * refresh_tokens, one_time_tokens, security_events, rate_limits).
 */
export default defineCommand({
  args: {
    ...cwdArg,
    ...jsonArg,
    force: { type: 'boolean', description: 'Overwrite auth migrations the app already has', default: false },
  },
  run({ args }) {
    const project = findProject(args.cwd)
    const result = writeMigrationFiles(project, AUTH_MIGRATION_SOURCES, 'make:auth', args.force)
    if (args.json) return printJson(result satisfies MakeAuthJson)
    for (const file of result.written) printLine(`Created ${file}`)
    for (const file of result.skipped) printLine(`Exists  ${file} (--force overwrites)`)
    printNote('Next: svc migrate. The routes are under /api/auth (svc route:list); see docs/authentication.md.')
  },
})
