/**
 * What `svc tinker` puts in scope: the app and what it is built from, and
 * the app's models (every export of the files in app/models/, when the app
 * has that folder); and the import that `import('./app/...ts')` is
 * rewritten to (imports.ts).
 */
import { existsSync, readdirSync } from 'node:fs'
import { basename, extname, join } from 'node:path'
import * as framework from '../../framework/index.ts'
import { createTestClient } from '../../framework/testing/index.ts'
import { importWithJiti } from '../project/import-file.ts'
import type { LoadedApp } from '../project/load-app.ts'
import type { Project } from '../project/project.ts'
import { TINKER_IMPORT, tinkerImport } from './imports.ts'

export interface TinkerScope {
  /** Name -> value, as the REPL's globals. */
  values: Record<string, unknown>
  /** One line each: what a name is (the banner and `.help`). */
  described: Array<[string, string]>
}

const MODEL_FILE = /\.(ts|mts|js|mjs)$/

export async function tinkerScope(project: Project, loaded: LoadedApp): Promise<TinkerScope> {
  const values: Record<string, unknown> = {}
  const described: Array<[string, string]> = []
  const add = (name: string, value: unknown, description: string) => {
    values[name] = value
    described.push([name, description])
  }
  add('app', loaded.app, 'the app (app.fetch(request), app.routes())')
  add('db', loaded.database, "the app's database: await db.execute(sql, args), db.all, db.first")
  add('config', loaded.config, 'the resolved configuration (config.vars: every variable)')
  add('client', createTestClient(loaded.app), "requests without a server: await client.get('/health/live'), client.post(path, { json, token })")
  add('routes', () => loaded.app.routes().map(({ method, path, middleware }) => `${method} ${path}${middleware.length > 0 ? `  [${middleware.join(', ')}]` : ''}`), 'routes(): every route, one line each')
  add('svc', framework, "svc's exports (svc.HttpError, svc.migrate, ...)")
  for (const [name, value] of Object.entries(await loadModels(project))) {
    if (name in values) continue
    add(name, value, 'model (app/models)')
  }
  // What each line's import(...) calls (imports.ts): not listed, the user writes import().
  values[TINKER_IMPORT] = tinkerImport(project.appDir)
  return { values, described }
}

/** Every named export of app/models/*; a default export under the file's name in PascalCase (post-comment.ts: PostComment), unless a named export has that name. */
async function loadModels(project: Project): Promise<Record<string, unknown>> {
  const folder = join(project.appDir, 'app', 'models')
  if (!existsSync(folder)) return {}
  const models: Record<string, unknown> = {}
  for (const file of readdirSync(folder).filter((name) => MODEL_FILE.test(name) && !name.endsWith('.d.ts')).sort()) {
    const { default: fallback, ...named } = await importWithJiti(join(folder, file))
    Object.assign(models, named)
    const name = pascalCase(basename(file, extname(file)))
    if (fallback !== undefined && !(name in named)) models[name] = fallback
  }
  return models
}

function pascalCase(name: string): string {
  return name.replace(/(^|[-_.])([a-z0-9])/g, (_, _separator: string, letter: string) => letter.toUpperCase())
}
