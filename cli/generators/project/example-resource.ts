/**
 * The example resource of `svc new --example=<Name>` and the wizard:
 * make:crud run in the new project (cli/generators/crud.ts), with its
 * factory and seeder so that `svc db:seed` gives it sample rows.
 */
import type { MakeJson } from '../../contract/index.ts'
import { CliError } from '../../output/cli-error.ts'
import type { CommandIO } from '../../output/io.ts'
import { findProject } from '../../project/project.ts'
import { makeCrud } from '../crud.ts'
import { refuseFrameworkTable } from '../generator.ts'
import { deriveNames } from '../names.ts'

/** Why `name` cannot name a resource (make:crud's own rule), or undefined. */
export function checkResourceName(name: string): string | undefined {
  try {
    // Also svc's own tables (User): the wizard asks again at once, rather than refusing once the rest is answered.
    refuseFrameworkTable(deriveNames(name).table)
    return undefined
  } catch (error) {
    if (error instanceof CliError) return `${error.message} (${error.hint})`
    throw error
  }
}

export async function addExampleResource(dir: string, name: string, io: CommandIO): Promise<MakeJson> {
  return makeCrud(findProject(dir, io.env), name, { seed: true })
}
