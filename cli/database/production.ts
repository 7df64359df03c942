/**
 * The production guard of the commands that change or drop data (`migrate`,
 * `migrate:rollback`, `migrate:fresh`, `db:seed`): with APP_ENV=production
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
