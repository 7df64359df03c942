/** Route patterns as trace filters. No VS Code import. */

/** `/api/v1/posts/{id}` → `/api/v1/posts/*` (the `--path` glob of the trace commands); an optional last parameter → `*` too. */
export function routeToPathGlob(path: string): string {
  if (!/\{/.test(path)) return path
  return path.replace(/\/\{[A-Za-z_][A-Za-z0-9_]*\?\}$/, '*').replace(/\{[A-Za-z_][A-Za-z0-9_]*\}/g, '*')
}
