/**
 * Which controller each route's handler comes from, read from the route
 * files' imports without running them (cli/lsp/route-file.ts): `posts.listPosts`
 * with `import * as posts from '../app/controllers/posts.ts'` is the `posts`
 * controller, app/controllers/posts.ts. Inline handlers and the built-in
 * routes (auth, health) have none.
 */
import { existsSync, readFileSync } from 'node:fs'
import { basename, dirname, extname, join, relative, resolve } from 'node:path'
import { routeFilePrefix } from '../../framework/router/path-grammar.ts'
import type { RouteControllerJson, RouteJson } from '../contract/index.ts'
import { parseRouteFile, type RouteFileModel, type StaticRoute } from '../lsp/route-file.ts'
import type { Project } from '../project/project.ts'

/** The controller of each route (same order), or null. */
export function routeControllers(project: Project, routes: readonly RouteJson[]): Array<RouteControllerJson | null> {
  const models = new Map<string, RouteFileModel | null>()
  const modelOf = (file: string) => {
    if (!models.has(file)) {
      const path = join(project.appDir, file)
      models.set(file, existsSync(path) ? parseRouteFile(readFileSync(path, 'utf8'), routeFilePrefix(path)) : null)
    }
    return models.get(file)!
  }
  return routes.map((route) => {
    if (route.source === null) return null
    const model = modelOf(route.source.file)
    const written = model === null ? undefined : staticRouteOf(model, route)
    return written === undefined ? null : controllerOf(project, route.source.file, model!, written)
  })
}

/** The route as written: same method and path, the one nearest the line the app reported. */
function staticRouteOf(model: RouteFileModel, route: RouteJson): StaticRoute | undefined {
  const line = route.source!.line - 1
  return model.routes
    .filter((candidate) => candidate.method === route.method && candidate.path === route.path)
    .sort((a, b) => Math.abs(a.range.start.line - line) - Math.abs(b.range.start.line - line))[0]
}

function controllerOf(project: Project, routeFile: string, model: RouteFileModel, route: StaticRoute): RouteControllerJson | null {
  const handler = route.handler
  if (handler.kind !== 'namespace' && handler.kind !== 'identifier') return null
  const binding = model.imports.get(handler.kind === 'namespace' ? handler.namespace : handler.name)
  if (binding === undefined || !binding.module.startsWith('.')) return null
  const file = relative(project.appDir, resolve(dirname(join(project.appDir, routeFile)), binding.module)).split('\\').join('/')
  // `PostController.index` with a named import names the controller itself; a namespace or a function is named by its file.
  const name = handler.kind === 'namespace' && binding.imported !== '*' ? handler.namespace : basename(file, extname(file))
  return { name, file }
}
