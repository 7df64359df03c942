/** What every `make:*` command does once it has a plan: write it, print the result (or `--json`). */
import type { MakeJson } from '../contract/index.ts'
import type { CommandIO } from '../output/io.ts'
import { projectFor, type Project } from '../project/project.ts'
import { Generator } from './generator.ts'
import { printMade } from './report.ts'
import { carryOutPlan, type Plan } from './write-plan.ts'

export interface GeneratorArgs {
  cwd: string | undefined
  json: boolean
  force: boolean
}

/** The app generators write into (`--cwd`, else the command's folder): a folder with only a package.json will do. */
export function generatorProject(io: CommandIO, cwd: string | undefined): Project {
  return projectFor(io, cwd, { forGenerators: true })
}

export async function runGenerator(
  io: CommandIO,
  args: GeneratorArgs,
  json: (document: MakeJson) => void,
  plan: (generator: Generator) => Promise<Plan>,
  next: readonly string[] = [],
): Promise<void> {
  const project = generatorProject(io, args.cwd)
  const made = await plan(new Generator(project))
  const { json: result, overwritten } = await carryOutPlan(project, made, args.force)
  if (args.json) return json(result)
  printMade(io, result, made.next ?? next, overwritten)
}
