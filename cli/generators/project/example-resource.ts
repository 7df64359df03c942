/**
 * `svc start`'s example resource: `make:crud <Name>` run in the new project.
 *
 * MERGE(generators): make:crud is being built on branch `generators`. Until
 * it lands this finds the command in the manifest and runs it through the
 * dispatcher (so the option works as soon as the command exists); once
 * cli/generators exports make:crud as a function, call that here instead.
 */
import { findCommand, loadManifest } from '../../command/manifest.ts'
import { CliError } from '../../output/cli-error.ts'
import type { CommandIO } from '../../output/io.ts'

export const EXAMPLE_GENERATOR = 'make:crud'
const RESOURCE_NAME = /^[A-Za-z][A-Za-z0-9]*(\/[A-Za-z][A-Za-z0-9]*)*$/

export async function canAddExampleResource(): Promise<boolean> {
  return findCommand(await loadManifest(), EXAMPLE_GENERATOR) !== undefined
}

/** Why `name` cannot name a resource, or undefined. */
export function checkResourceName(name: string): string | undefined {
  return RESOURCE_NAME.test(name) ? undefined : 'a resource name is a word such as Post (letters and digits; Admin/Post for a nested one)'
}

/** Fails, before anything is written, when the example resource cannot be made. */
export async function requireExampleGenerator(name: string): Promise<void> {
  const bad = checkResourceName(name)
  if (bad !== undefined) throw new CliError('E_BAD_OPTION', `--example=${name}: ${bad}`)
  if (!(await canAddExampleResource())) {
    throw new CliError('E_NO_GENERATOR', `--example=${name}: this svc has no ${EXAMPLE_GENERATOR} yet, so there can be no example resource`, { hint: 'pass --example=none' })
  }
}

/** Runs make:crud in `dir`; what it prints goes to stderr, so that `--json` keeps stdout one document. */
export async function addExampleResource(dir: string, name: string, io: CommandIO): Promise<void> {
  const { runCli } = await import('../../main.ts')
  const generator: CommandIO = { ...io, stdout: io.stderr, cwd: dir, exitCode: 0 }
  if ((await runCli([EXAMPLE_GENERATOR, name, '--cwd', dir], generator)) !== 0) {
    throw new CliError('E_EXAMPLE', `${EXAMPLE_GENERATOR} ${name} failed (see above); the project itself is complete in ${dir}`, {
      hint: `fix it and run svc ${EXAMPLE_GENERATOR} ${name} in the project`,
    })
  }
}
