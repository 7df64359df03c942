/**
 * A plugin's page routes give way to the app's own: a route of the app's
 * `routes/web.ts` that would answer a plugin route's requests (the same
 * method or `any`; a path, group prefix, `{param?}` and constraints that take
 * the plugin route's path) leaves the plugin route out. Plugin routes are
 * matched first, so an app that served its own /verify-email (as the docs
 * said before authPlugin served one) would otherwise lose it without a word.
 */
import type { RouteDefinition } from '../router/define-routes.ts'
import { compilePath, joinPaths } from '../router/path-grammar.ts'
import { methodsOverlap, pathMatches, type RoutePathMatcher } from '../router/path-match.ts'
import type { RouteRecord } from '../router/types.ts'

interface AppRoute extends RoutePathMatcher {
  path: string
}

export function yieldToApp(plugin: RouteDefinition, app: RouteDefinition | undefined): RouteDefinition {
  if (app === undefined || app.routes.length === 0) return plugin
  const own: AppRoute[] = app.routes.map((route) => {
    const path = joinPaths('/', route.path)
    return { method: route.method, path, pattern: compilePath(path), where: route.where }
  })
  return { ...plugin, routes: plugin.routes.filter((route) => !own.some((mine) => takesOver(mine, route))) }
}

function takesOver(mine: AppRoute, theirs: RouteRecord): boolean {
  if (!methodsOverlap(mine.method, theirs.method)) return false
  const path = joinPaths('/', theirs.path)
  // A plugin route with parameters answers many paths, not one to test: only the same path written takes it over.
  if (compilePath(path).params.length > 0) return mine.path === path
  return pathMatches(mine, new URL(path, 'http://route.check').pathname)
}
