/**
 * The Routes view's grouping: by prefix and version (`/api/v1`, `/api/v2`,
 * `/api/auth`, `/health`). No VS Code import: unit-tested as it is.
 */
import type { RouteJson } from '../../cli/contract/routes.ts'

export interface RouteGroup {
  label: string
  routes: RouteJson[]
}

/** The group of a path: its first two static segments when it has more, else its first ("/" for the root). */
export function routeGroupOf(path: string): string {
  const segments = path.split('/').filter((segment) => segment !== '')
  const leading: string[] = []
  for (const segment of segments) {
    if (segment.startsWith('{') || leading.length === 2) break
    leading.push(segment)
  }
  if (leading.length === 2 && segments.length === 2 && !/^v\d+$/.test(leading[1]!)) leading.pop()
  return leading.length === 0 ? '/' : `/${leading.join('/')}`
}

/** Groups in order of first appearance; routes keep the table's order (the match order). */
export function groupRoutes(routes: readonly RouteJson[]): RouteGroup[] {
  const groups = new Map<string, RouteJson[]>()
  for (const route of routes) {
    const label = routeGroupOf(route.path)
    groups.set(label, [...(groups.get(label) ?? []), route])
  }
  return [...groups].map(([label, members]) => ({ label, routes: members }))
}
