/**
 * The production guard of the commands that change or drop data (`migrate`,
 * `migrate:rollback`, `migrate:fresh`, `db:seed`, and `serve --migrate` and
 * `live --migrate`): with APP_ENV=production
 * they refuse unless given `--force`, so that a deploy script says it means it.
 */
import type { ArgsDef } from '../command/define.ts'
import { CliError } from '../output/cli-error.ts'
import { loadConfig } from '../project/load-app.ts'
import type { Project } from '../project/project.ts'

export const forceArg = {
  force: { type: 'boolean', description: 'Run in production too (deploy scripts say so explicitly)' },
} as const satisfies ArgsDef

/**
 * Throws `E_PRODUCTION` when the app runs in production and `force` is not set.
 * @example refuseInProduction(project, { command: 'migrate:fresh', does: 'drops every table of the live database', force: args.force })
 */
export function refuseInProduction(project: Project, options: { command: string; does: string; force: boolean | undefined; hint?: string }): void {
  if (options.force === true || loadConfig(project).env !== 'production') return
  throw new CliError('E_PRODUCTION', `APP_ENV is production: svc ${options.command} ${options.does}`, {
    hint: options.hint ?? `run svc ${options.command} --force when you mean it`,
  })
}

/** `serve --migrate` (and `live --migrate`, which runs it) changes the live database as `svc migrate` does. */
export function serveMigrateGuard(force: boolean | undefined): Parameters<typeof refuseInProduction>[1] {
  return {
    command: 'serve --migrate',
    does: 'changes the live database before serving',
    force,
    hint: 'run svc migrate --force in the deploy step, then svc serve; or svc serve --migrate --force when you mean it',
  }
}
