/**
 * `route:rules`: the request schemas the routes declare (`.body()`,
 * `.query()`), as JSON Schema. The schema objects exist only in the running
 * app, so the app is loaded (without a database); the conversion is
 * cli/schemas/to-json-schema.ts, the one make:openapi uses.
 */
import type { RouteRulesJson } from '../contract/index.ts'
import { loadApp } from '../project/load-app.ts'
import type { Project } from '../project/project.ts'
import { writeRouteCache } from '../project/route-cache.ts'
import { toJsonSchema } from '../schemas/to-json-schema.ts'

export async function routeRules(project: Project): Promise<RouteRulesJson> {
  const loaded = await loadApp(project, { withDatabase: false })
  try {
    const routes = loaded.app.routes()
    // The same description route:list prints (sources relative to the app); refreshes the route cache on the way.
    const described = writeRouteCache(project, routes)
    const result: RouteRulesJson = { routes: [], warnings: [] }
    routes.forEach((route, index) => {
      const { body, query } = route.schemas
      if (body === null && query === null) return
      const { method, path, handler, source } = described[index]!
      const convert = (part: 'body' | 'query', schema: typeof body) => {
        if (schema === null) return null
        const converted = toJsonSchema(schema, { direction: 'input' })
        for (const warning of converted.warnings) result.warnings.push({ method, path, part, ...warning })
        return converted.schema
      }
      result.routes.push({ method, path, handler, source, body: convert('body', body), query: convert('query', query) })
    })
    return result
  } finally {
    await loaded.close()
  }
}
