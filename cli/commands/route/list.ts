import { defineCommand } from 'citty'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { color, printJson, printLine, table } from '../../output/print.ts'
import { findProject, type Project } from '../../project/project.ts'
import { readRouteCache, writeRouteCache, type RouteJson } from '../../project/route-cache.ts'

export interface RouteListJson {
  routes: RouteJson[]
}

/** The routes from the cache, or from the app (then cached). */
export async function projectRoutes(project: Project): Promise<RouteJson[]> {
  const cached = readRouteCache(project)
  if (cached !== undefined) return cached
  // Loaded only on a cache miss: the app loader pulls in the framework, the server adapter and jiti.
  const { loadApp } = await import('../../project/load-app.ts')
  const loaded = await loadApp(project, { withDatabase: false })
  try {
    return writeRouteCache(project, loaded.app.routes())
  } finally {
    await loaded.close()
  }
}

export default defineCommand({
  args: {
    ...cwdArg,
    ...jsonArg,
    method: { type: 'string', description: 'Only routes answering this method (GET, POST...)' },
    path: { type: 'string', description: 'Only routes whose path contains this text' },
  },
  async run({ args }) {
    const method = args.method?.toUpperCase()
    const routes = (await projectRoutes(findProject(args.cwd))).filter(
      (route) =>
        (method === undefined || route.method === method || route.method === 'ANY' || (method === 'HEAD' && route.method === 'GET')) &&
        (args.path === undefined || route.path.includes(args.path)),
    )
    if (args.json) {
      const json: RouteListJson = { routes }
      return printJson(json)
    }
    if (routes.length === 0) return printLine('No routes match.')
    printLine(
      table(
        routes.map((route) => [
          color.green(route.method),
          route.path.replace(/\{[^}]+\}/g, (param) => color.yellow(param)),
          route.middleware.join(', ') || color.dim('-'),
          route.handler,
          route.source ? color.dim(`${route.source.file}:${route.source.line}`) : '',
        ]),
        ['METHOD', 'PATH', 'MIDDLEWARE', 'HANDLER', 'SOURCE'],
      ),
    )
    printLine(color.dim(`\n${routes.length} route${routes.length === 1 ? '' : 's'}`))
  },
})
