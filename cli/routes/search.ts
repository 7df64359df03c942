/** `route:search`: the routes a keyword matches by path, handler, middleware or controller. */
import type { RouteJson, RouteSearchMatchJson } from '../contract/index.ts'
import type { Project } from '../project/project.ts'
import { routeControllers } from './controllers.ts'

export type RouteSearchField = RouteSearchMatchJson['matched'][number]

/** Case-insensitive: `post` matches `/api/v1/posts`, `createPost`, the `posts` controller. */
export function searchRoutes(project: Project, routes: readonly RouteJson[], keyword: string): RouteSearchMatchJson[] {
  const needle = keyword.toLowerCase()
  const has = (text: string) => text.toLowerCase().includes(needle)
  const controllers = routeControllers(project, routes)
  const found: RouteSearchMatchJson[] = []
  routes.forEach((route, index) => {
    const controller = controllers[index] ?? null
    const matched: RouteSearchField[] = []
    if (has(route.path)) matched.push('path')
    if (has(route.handler)) matched.push('handler')
    if (route.middleware.some(has)) matched.push('middleware')
    if (controller !== null && (has(controller.name) || has(controller.file))) matched.push('controller')
    if (matched.length > 0) found.push({ ...route, controller, matched })
  })
  return found
}
