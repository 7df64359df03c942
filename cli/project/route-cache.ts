/**
 * The route table cache, `storage/cache/routes.json`: the one machine-readable
 * description of the routes (route:list, OpenAPI and the extension read it).
 * It is reused while the files under routes/ and app/ are unchanged (same
 * paths, sizes and modification times); deleting it clears it.
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import type { RouteDescription } from '../../framework/index.ts'
import type { RouteJson } from '../contract/routes.ts'
import { cliVersion } from '../version.ts'
import type { Project } from './project.ts'
import { routeDefinitionPosition } from './source-position.ts'

interface RouteCacheFile {
  fingerprint: string
  routes: RouteJson[]
}

export function routeCachePath(project: Project): string {
  return join(project.storageDir, 'cache', 'routes.json')
}

export function routeFingerprint(project: Project): string {
  // The version of the cache's format beside the CLI's: a cache written before `schemas` existed is rebuilt.
  const hash = createHash('sha256').update(`${cliVersion()}\0routes-2`)
  for (const dir of ['routes', 'app']) {
    for (const file of listFiles(join(project.appDir, dir))) {
      const stat = statSync(file)
      hash.update(`${relative(project.appDir, file)}\0${stat.size}\0${stat.mtimeMs}\n`)
    }
  }
  return hash.digest('hex')
}

export function readRouteCache(project: Project): RouteJson[] | undefined {
  const path = routeCachePath(project)
  if (!existsSync(path)) return undefined
  try {
    const cache = JSON.parse(readFileSync(path, 'utf8')) as RouteCacheFile
    return cache.fingerprint === routeFingerprint(project) && Array.isArray(cache.routes) ? cache.routes : undefined
  } catch {
    return undefined // a damaged cache is rebuilt, never trusted
  }
}

export function writeRouteCache(project: Project, routes: RouteDescription[]): RouteJson[] {
  const json = routes.map((route) => toRouteJson(project, route))
  const path = routeCachePath(project)
  mkdirSync(dirname(path), { recursive: true })
  const file: RouteCacheFile = { fingerprint: routeFingerprint(project), routes: json }
  writeFileSync(path, `${JSON.stringify(file, null, 2)}\n`)
  return json
}

function toRouteJson(project: Project, route: RouteDescription): RouteJson {
  const source = route.source && { ...routeDefinitionPosition(route.source), file: relative(project.appDir, route.source.file).split('\\').join('/') }
  const { body, query, response } = route.schemas
  const { responses: _inProcessOnly, ...described } = route
  return { ...described, source, schemas: { body: body !== null, query: query !== null, response: response !== null } }
}

function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort()
}

/** The routes from the cache, or from the app (then cached). */
export async function projectRoutes(project: Project): Promise<RouteJson[]> {
  const cached = readRouteCache(project)
  if (cached !== undefined) return cached
  // Loaded only on a cache miss: the app loader pulls in the framework, the server adapter and jiti.
  const { loadApp } = await import('./load-app.ts')
  const loaded = await loadApp(project, { withDatabase: false })
  try {
    return writeRouteCache(project, loaded.app.routes())
  } finally {
    await loaded.close()
  }
}
