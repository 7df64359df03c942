/**
 * `make:postman`: the collection built from the app's API description (the
 * same one make:openapi writes), at `public/postman_collection.json` in the
 * app folder (or `--output`), keys sorted: the same routes give the same bytes.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import type { MakePostmanJson } from '../contract/api-docs.ts'
import { projectOpenApi } from '../openapi/project.ts'
import { stableStringify } from '../openapi/stable-json.ts'
import type { Project } from '../project/project.ts'
import { buildPostmanCollection } from './collection.ts'

export const DEFAULT_POSTMAN_FILE = join('public', 'postman_collection.json')

export interface WritePostmanOptions {
  cwd: string
  output?: string
  baseUrl: string
  crud?: boolean
}

export async function writePostman(project: Project, options: WritePostmanOptions): Promise<MakePostmanJson> {
  const { document, warnings } = await projectOpenApi(project)
  const { collection, flows, warnings: flowWarnings } = buildPostmanCollection(document, { baseUrl: options.baseUrl, crud: options.crud })
  const target = options.output !== undefined ? resolve(options.cwd, options.output) : join(project.appDir, DEFAULT_POSTMAN_FILE)
  mkdirSync(dirname(target), { recursive: true })
  writeFileSync(target, stableStringify(collection, true))
  return {
    written: [relative(project.root, target).split('\\').join('/')],
    requests: collection.item.reduce((sum, folder) => sum + folder.item.length, 0),
    folders: collection.item.map((folder) => folder.name),
    flows,
    warnings: [...warnings, ...flowWarnings],
  }
}
