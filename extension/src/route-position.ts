/**
 * Where to ask the language server for a route's handler: a position inside
 * the route's call on its source line. The line the route table reports is
 * right; its column comes from a source map of the transpiled routes file and
 * may not be (`r.get('/hello', greetings.hello)`, 36 characters long, was
 * reported at column 91 in a project made by `svc new`): past the end of the
 * line, the definition request found no route and the click opened the route
 * file instead of the handler. `route:list` now maps columns through jiti's
 * source map (cli/project/source-position.ts); this still guards a route
 * cache written by an svc before that, and any column the map cannot place.
 */
export interface LinePosition {
  /** 0-based, as VS Code counts. */
  line: number
  character: number
}

export function routeCallPosition(source: { line: number; column: number }, lineText: string): LinePosition {
  const line = source.line - 1
  const firstNonBlank = lineText.search(/\S/)
  const end = lineText.trimEnd().length
  const reported = source.column - 1
  if (firstNonBlank === -1 || (reported >= firstNonBlank && reported < end)) return { line, character: Math.max(0, reported) }
  return { line, character: firstNonBlank }
}
