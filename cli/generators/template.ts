/**
 * Templates are typed functions returning `{ path, contents }` (nuxt-cli's
 * shape), one file per kind in `templates/<kind>.ts`. Each template file adds
 * its kind and options to `TemplateOptions` by declaration merging, so adding
 * a kind is one new file here (its `make:` command is one more file in
 * cli/commands/make/). An app overrides a kind with `stubs/<kind>.ts`
 * (stubs.ts), which gets the built-in template to start from.
 */
import type { Field } from './fields.ts'
import type { Names } from './names.ts'

export interface GeneratedFile {
  /** Relative to the app folder, with `/`: `app/models/product.ts`. */
  path: string
  contents: string
}

/** Each kind's options, added by its template file: `declare module '../template.ts' { interface TemplateOptions { model: ModelOptions } }`. */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface TemplateOptions {}

export type TemplateKind = keyof TemplateOptions

export interface TemplateContext<K extends TemplateKind> {
  kind: K
  names: Names
  options: TemplateOptions[K]
}

export type Template<K extends TemplateKind> = (context: TemplateContext<K>) => GeneratedFile

/**
 * What `stubs/<kind>.ts` default-exports: the template the app wants, given
 * the built-in one to reuse.
 * @example
 * import type { Stub } from 'svc/generators'
 * const model: Stub<'model'> = (context, builtin) => {
 *   const file = builtin(context)
 *   return { ...file, contents: `// Our models\n${file.contents}` }
 * }
 * export default model
 */
export type Stub<K extends TemplateKind> = (context: TemplateContext<K>, builtin: Template<K>) => GeneratedFile

export interface TemplateDefinition<K extends TemplateKind> {
  kind: K
  render: Template<K>
}

export function defineTemplate<K extends TemplateKind>(kind: K, render: Template<K>): TemplateDefinition<K> {
  return { kind, render }
}

/** Options every field-aware template takes. */
export interface WithFields {
  fields: readonly Field[]
}

/** Lines of generated code, indented by `spaces` (blank lines stay blank). */
export function indent(lines: readonly string[], spaces: number): string {
  const pad = ' '.repeat(spaces)
  return lines.map((line) => (line === '' ? '' : `${pad}${line}`)).join('\n')
}
