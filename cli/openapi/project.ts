/**
 * The API description of a project: its app loaded as `svc serve` loads it
 * (routes, kernel, the auth plugin; no database is opened), then described
 * from the compiled route table. The docs page's own routes are left out.
 */
import { existsSync, readFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { loadApp } from '../project/load-app.ts'
import type { Project } from '../project/project.ts'
import { buildOpenApi, type OpenApiBuild } from './document.ts'
import { schemaNames } from './schema-names.ts'

export interface ProjectOpenApiOptions {
  /** The `servers` URL (`/` by default: the origin serving the document). */
  server?: string
}

export async function projectOpenApi(project: Project, options: ProjectOpenApiOptions = {}): Promise<OpenApiBuild> {
  const loaded = await loadApp(project, { withDatabase: false, apiDocs: false })
  try {
    const { title, version } = packageInfo(project)
    return buildOpenApi(loaded.app.routes(), schemaNames(project.appDir), { title, version, server: options.server })
  } finally {
    await loaded.close()
  }
}

/** The title and version: the app's package.json (or the project's), else the folder's name and 0.0.0. */
function packageInfo(project: Project): { title: string; version: string } {
  for (const dir of [project.appDir, project.root]) {
    const file = join(dir, 'package.json')
    if (!existsSync(file)) continue
    try {
      const manifest = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown }
      if (typeof manifest.name === 'string' && manifest.name !== '') {
        return { title: manifest.name, version: typeof manifest.version === 'string' ? manifest.version : '0.0.0' }
      }
    } catch {
      // A package.json that cannot be read names nothing; the folder's name does.
    }
  }
  return { title: basename(project.appDir), version: '0.0.0' }
}
