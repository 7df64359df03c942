/**
 * Whether one route takes a request, decided without a route table: its
 * method, its compiled path and its constraints, as the table decides them.
 * For checks made once, at start-up (which routes of a plugin an app's own
 * routes take over); requests go through the table.
 */
import type { PathPattern } from './path-grammar.ts'
import type { RouteMethod } from './types.ts'

export interface RoutePathMatcher {
  method: RouteMethod
  pattern: PathPattern
  where: ReadonlyMap<string, RegExp>
}

/** Whether the two methods share a request: equal, or either one is `ANY`. */
export function methodsOverlap(a: RouteMethod, b: RouteMethod): boolean {
  return a === b || a === 'ANY' || b === 'ANY'
}

/**
 * Whether `route`'s path and constraints take `pathname` (as a URL carries
 * it, percent-encoded): the pattern matches, and each parameter given,
 * decoded, satisfies its constraint. A value that cannot be decoded is no match.
 */
export function pathMatches(route: Omit<RoutePathMatcher, 'method'>, pathname: string): boolean {
  const found = route.pattern.regex.exec(pathname)
  if (found === null) return false
  for (const [name, constraint] of route.where) {
    const raw = found.groups?.[name]
    if (raw === undefined) continue
    let value: string
    try {
      value = decodeURIComponent(raw)
    } catch {
      return false
    }
    if (!constraint.test(value)) return false
  }
  return true
}
