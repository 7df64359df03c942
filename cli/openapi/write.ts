/**
 * `make:openapi`: the description written as JSON (`docs/openapi.json` in
 * the app folder, or `--output`), or YAML (`--yaml`, or an output named
 * `.yaml`/`.yml`), keys sorted so that the same routes give the same bytes;
 * with `--with-swagger`, the docs page (`public/docs.html`) too.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { stringify as toYaml } from 'yaml'
import type { MakeOpenApiJson } from '../contract/api-docs.ts'
import type { Project } from '../project/project.ts'
import { DOCS_PAGE_FILE, renderDocsPage } from './docs-page.ts'
import type { JsonObject } from './document.ts'
import { projectOpenApi } from './project.ts'
import { sortKeys, stableStringify } from './stable-json.ts'

export const DEFAULT_OPENAPI_FILE = join('docs', 'openapi.json')

export interface WriteOpenApiOptions {
  /** Where to write, relative to `cwd` (the command's folder); `docs/openapi.json` (`.yaml` with `yaml`) in the app folder by default. */
  output?: string
  cwd: string
  yaml?: boolean
  withSwagger?: boolean
  server?: string
}

export async function writeOpenApi(project: Project, options: WriteOpenApiOptions): Promise<MakeOpenApiJson> {
  const { document, warnings } = await projectOpenApi(project, { server: options.server })
  const sorted = sortKeys(document)
  const target =
    options.output !== undefined
      ? resolve(options.cwd, options.output)
      : join(project.appDir, options.yaml === true ? DEFAULT_OPENAPI_FILE.replace(/\.json$/, '.yaml') : DEFAULT_OPENAPI_FILE)
  const yaml = options.yaml === true || /\.ya?ml$/i.test(target)
  const written = [writeText(target, yaml ? toYaml(sorted, { aliasDuplicateObjects: false, lineWidth: 0 }) : stableStringify(sorted, true))]
  if (options.withSwagger === true) written.push(writeText(join(project.appDir, DOCS_PAGE_FILE), renderDocsPage(sorted)))
  return {
    written: written.map((file) => relative(project.root, file).split('\\').join('/')),
    openapi: String(sorted.openapi),
    ...counts(sorted),
    warnings,
  }
}

function counts(document: JsonObject): { paths: number; operations: number; schemas: string[] } {
  const paths = (document.paths ?? {}) as Record<string, Record<string, unknown>>
  const schemas = ((document.components as JsonObject | undefined)?.schemas ?? {}) as Record<string, unknown>
  return {
    paths: Object.keys(paths).length,
    operations: Object.values(paths).reduce((sum, item) => sum + Object.keys(item).length, 0),
    schemas: Object.keys(schemas),
  }
}

function writeText(file: string, text: string): string {
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, text)
  return file
}
