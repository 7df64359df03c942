/**
 * Finds the template of a kind: the app's `stubs/<kind>.ts` when it has one,
 * else the built-in `templates/<kind>.ts` (loaded by name: a kind is its file).
 */
import { existsSync } from 'node:fs'
import { join, posix } from 'node:path'
import { CliError } from '../output/cli-error.ts'
import { forgetAppModules, importWithJiti } from '../project/import-file.ts'
import type { GeneratedFile, Stub, Template, TemplateContext, TemplateDefinition, TemplateKind } from './template.ts'

// The sources run as .ts (tests), the build as .js.
const EXTENSION = import.meta.url.endsWith('.ts') ? '.ts' : '.js'

export async function builtinTemplate<K extends TemplateKind>(kind: K): Promise<Template<K>> {
  let module: { default?: TemplateDefinition<K> }
  try {
    module = (await import(new URL(`./templates/${kind}${EXTENSION}`, import.meta.url).href)) as { default?: TemplateDefinition<K> }
  } catch (error) {
    throw new Error(`No built-in template "${kind}" (cli/generators/templates/${kind}.ts)`, { cause: error })
  }
  if (module.default?.kind !== kind) throw new Error(`cli/generators/templates/${kind}.ts does not define the template "${kind}"`)
  return module.default.render
}

/** The app's stub for a kind (`stubs/<kind>.ts`), if it has one. */
export function stubFile(appDir: string, kind: TemplateKind): string | undefined {
  const file = join(appDir, 'stubs', `${kind}.ts`)
  return existsSync(file) ? file : undefined
}

/** The template generators use for `kind` in this app: its stub wrapped around the built-in one, or the built-in one. */
export async function templateFor<K extends TemplateKind>(appDir: string, kind: K): Promise<Template<K>> {
  const builtin = await builtinTemplate(kind)
  const file = stubFile(appDir, kind)
  if (file === undefined) return builtin
  forgetAppModules(join(appDir, 'stubs'))
  const module = await importWithJiti(file)
  const stub = module.default
  if (typeof stub !== 'function') {
    throw new CliError('E_BAD_STUB', `stubs/${kind}.ts does not export a template function`, {
      hint: `export default (context, builtin) => ({ path, contents }) (type Stub<'${kind}'> from 'svc/generators'); see docs/generators.md`,
    })
  }
  return (context: TemplateContext<K>) => checkedFile(kind, (stub as Stub<K>)(context, builtin))
}

function checkedFile(kind: string, file: unknown): GeneratedFile {
  const candidate = file as Partial<GeneratedFile> | null
  if (typeof candidate?.path !== 'string' || typeof candidate.contents !== 'string') {
    throw new CliError('E_BAD_STUB', `stubs/${kind}.ts returned ${JSON.stringify(file)?.slice(0, 80) ?? String(file)}, not { path, contents }`)
  }
  const normal = posix.normalize(candidate.path.replaceAll('\\', '/'))
  if (normal.startsWith('../') || normal === '..' || posix.isAbsolute(normal)) {
    throw new CliError('E_BAD_STUB', `stubs/${kind}.ts wants to write ${candidate.path}, outside the app`, { hint: 'paths are relative to the app folder' })
  }
  return { path: normal, contents: candidate.contents }
}
