/**
 * `svc optimize`: everything that makes a start cheaper, made once.
 *
 * - modules: the app's TypeScript (routes, app/, migrations) transpiled into
 *   `<storage>/cache/modules`, which every later start reads instead of
 *   transpiling again (jiti's cache, kept where the app can write and a
 *   container keeps it);
 * - routes: the route table cache (`storage/cache/routes.json`), which
 *   route:list, OpenAPI and the editor read without loading the app;
 * - config: the signed configuration cache (config-cache.ts), when there is a
 *   key to sign it with.
 *
 * `svc optimize --clear` removes all three.
 */
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs'
import type { OptimizeJson } from '../contract/operations.ts'
import { cacheKey, clearConfigCache, configCachePath, realEnvironment, writeConfigCache } from './config-cache.ts'
import { moduleCacheDir, useModuleCache } from './import-file.ts'
import { loadApp } from './load-app.ts'
import { loadMigrations } from './migrations.ts'
import type { Project } from './project.ts'
import { routeCachePath, writeRouteCache } from './route-cache.ts'

export type CacheReport = OptimizeJson['caches'][number]

export async function optimizeProject(project: Project): Promise<CacheReport[]> {
  const modules = moduleCacheDir(project.storageDir)
  rmSync(modules, { recursive: true, force: true })
  mkdirSync(modules, { recursive: true })
  useModuleCache(modules)
  const loaded = await loadApp(project, { withDatabase: false })
  let routes: number
  try {
    routes = writeRouteCache(project, loaded.app.routes()).length
  } finally {
    await loaded.close()
  }
  const migrations = (await loadMigrations(project)).length
  const reports: CacheReport[] = [
    { name: 'modules', file: modules, done: true, detail: `${countFiles(modules)} transpiled files (routes, app/, ${migrations} migrations)` },
    { name: 'routes', file: routeCachePath(project), done: true, detail: `${routes} routes` },
  ]
  const signing = cacheKey(realEnvironment(project))
  if (signing === undefined) {
    reports.push({ name: 'config', file: configCachePath(project), done: false, detail: 'skipped: no APP_KEY or JWT_SECRET to sign it with' })
  } else {
    const { keySource } = writeConfigCache(project)
    reports.push({ name: 'config', file: configCachePath(project), done: true, detail: `signed with a key derived from ${keySource}` })
  }
  return reports
}

export function clearOptimizations(project: Project): CacheReport[] {
  const modules = moduleCacheDir(project.storageDir)
  const hadModules = existsSync(modules)
  rmSync(modules, { recursive: true, force: true })
  useModuleCache(undefined)
  const routes = routeCachePath(project)
  const hadRoutes = existsSync(routes)
  rmSync(routes, { force: true })
  const hadConfig = clearConfigCache(project)
  const said = (had: boolean) => (had ? 'removed' : 'there was none')
  return [
    { name: 'modules', file: modules, done: hadModules, detail: said(hadModules) },
    { name: 'routes', file: routes, done: hadRoutes, detail: said(hadRoutes) },
    { name: 'config', file: configCachePath(project), done: hadConfig, detail: said(hadConfig) },
  ]
}

function countFiles(dir: string): number {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).length
}
