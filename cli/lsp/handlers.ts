/**
 * The language server's handlers, as plain functions
 * `(state, document, params) => result`: CodeLens, hover, go-to-definition
 * and diagnostics on route files. `server.ts` only wires them to the
 * connection; the tests call them directly with fixtures.
 */
import { existsSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { CodeLens, Diagnostic, Hover, Location, Position } from 'vscode-languageserver'
import type { TextDocument } from 'vscode-languageserver-textdocument'
import type { SvcErrorData } from '../contract/lsp.ts'
import type { RouteJson } from '../contract/routes.ts'
import type { TraceSummaryJson } from '../contract/traces.ts'
import { parseSegments } from '../../framework/router/path-grammar.ts'
import { isError } from '../../framework/trace/store.ts'
import { analyseRoutes, type RouteDiagnostic } from './analysis.ts'
import { findExport, type RouteFileModel, type SourceRange, type StaticRoute } from './route-file.ts'

/** What the handlers read; the server keeps it up to date. */
export interface ServerState {
  /** The app folder, null when the workspace has no svc app. */
  appDir: string | null
  /** routes/api.ts and routes/web.ts (those that exist), in load order. */
  routeFiles: string[]
  /** `route:list --json`'s routes, null when the app does not load. */
  routeTable: RouteJson[] | null
  /** Why the route table could not be built (the CLI's error). */
  appError: SvcErrorData | null
  /** Recent traces (`trace:list --json`), null when there is no trace store. */
  traces: TraceSummaryJson[] | null
  /** Alias → the app's error for it, null when accepted (alias-check.ts). */
  aliasErrors: ReadonlyMap<string, string | null>
  /** The statically read model of a route file (open document or disk). */
  model(file: string): RouteFileModel | null
  /** A file's text (open document or disk), null when unreadable. */
  readFile(file: string): string | null
}

export const SEVERITY = { error: 1, warning: 2 } as const

export interface RouteLensArguments {
  method: string
  path: string
}

// ---------------------------------------------------------------------------
// Route facts
// ---------------------------------------------------------------------------

export function documentFile(document: Pick<TextDocument, 'uri'>): string {
  return fileURLToPath(document.uri)
}

export function isRouteFile(state: ServerState, document: Pick<TextDocument, 'uri'>): boolean {
  return document.uri.startsWith('file:') && state.routeFiles.includes(documentFile(document))
}

/** The compiled route for a statically read one (same method and full path). */
export function tableRoute(state: ServerState, route: StaticRoute): RouteJson | undefined {
  return state.routeTable?.find((entry) => entry.method === route.method && entry.path === route.path)
}

export interface TraceCounts {
  /** Requests of their own (replays left out). */
  traces: number
  errors: number
  /** Requests `svc replay` sent. */
  replays: number
}

/** Traces of a route: the ones whose matched route pattern is its path (and method, for non-ANY routes); replays counted apart. */
export function traceCounts(state: Pick<ServerState, 'traces'>, method: string, path: string): TraceCounts | null {
  if (state.traces === null) return null
  const matching = state.traces.filter((trace) => trace.route === path && (method === 'ANY' || trace.method === method || (method === 'GET' && trace.method === 'HEAD')))
  const own = matching.filter((trace) => trace.replay_of === null)
  return { traces: own.length, errors: own.filter(isErrorTrace).length, replays: matching.length - own.length }
}

/** An error trace, as the trace commands' `--error` counts it (a 5xx: every unexpected exception ends as one). */
export function isErrorTrace(trace: Pick<TraceSummaryJson, 'status_code'>): boolean {
  return isError(trace)
}

function routeAt(model: RouteFileModel, position: Position): StaticRoute | undefined {
  return model.routes.find((route) => contains(route.range, position))
}

function middlewareOf(state: ServerState, route: StaticRoute): string[] {
  return tableRoute(state, route)?.middleware ?? route.middleware.map((middleware) => middleware.name)
}

// ---------------------------------------------------------------------------
// CodeLens
// ---------------------------------------------------------------------------

/** Above each route: "GET /api/v1/posts/{id} · auth · 12 traces, 2 errors" (opens its traces), and "Send request". */
export function codeLenses(state: ServerState, document: TextDocument): CodeLens[] {
  if (!isRouteFile(state, document)) return []
  const model = state.model(documentFile(document))
  if (model === null) return []
  return model.routes.flatMap((route) => {
    const range = { start: route.callRange.start, end: route.callRange.start }
    const args: RouteLensArguments = { method: route.method, path: route.path }
    return [
      { range, command: { title: lensTitle(state, route), command: 'svc.openRouteTraces', arguments: [args] } },
      { range, command: { title: 'Send request', command: 'svc.sendRequest', arguments: [args] } },
    ]
  })
}

export function lensTitle(state: ServerState, route: StaticRoute): string {
  const parts = [`${route.method} ${route.path}`]
  const middleware = middlewareOf(state, route)
  if (middleware.length > 0) parts.push(middleware.join(', '))
  const counts = traceCounts(state, route.method, route.path)
  if (counts !== null) {
    const traces = `${counts.traces} trace${counts.traces === 1 ? '' : 's'}`
    parts.push(counts.errors > 0 ? `${traces}, ${counts.errors} error${counts.errors === 1 ? '' : 's'}` : traces)
    if (counts.replays > 0) parts.push(`${counts.replays} replay${counts.replays === 1 ? '' : 's'}`)
  }
  return parts.join(' · ')
}

// ---------------------------------------------------------------------------
// Hover
// ---------------------------------------------------------------------------

export function hover(state: ServerState, document: TextDocument, params: { position: Position }): Hover | null {
  if (!isRouteFile(state, document)) return null
  const model = state.model(documentFile(document))
  const route = model && routeAt(model, params.position)
  if (!route) return null
  const compiled = tableRoute(state, route)
  const lines = [`**${route.method}** \`${route.path}\``, '']
  const params_ = compiled?.params ?? paramsOf(route)
  if (params_.length > 0) {
    lines.push('Parameters:')
    for (const param of params_) {
      lines.push(`- \`{${param.name}}\`${param.optional ? ' (optional)' : ''}${param.pattern ? `: \`${param.pattern}\`` : ': any segment'}`)
    }
    lines.push('')
  }
  const middleware = middlewareOf(state, route)
  lines.push(middleware.length > 0 ? `Middleware: ${middleware.map((name) => `\`${name}\``).join(' → ')} → handler` : 'Middleware: none (only the global middleware)')
  lines.push('')
  lines.push(`Handler: \`${compiled?.handler ?? handlerName(route)}\``)
  const counts = traceCounts(state, route.method, route.path)
  if (counts !== null) lines.push('', `Traces: ${counts.traces} recent, ${counts.errors} error${counts.errors === 1 ? '' : 's'}${counts.replays > 0 ? `, and ${counts.replays} replay${counts.replays === 1 ? '' : 's'}` : ''}`)
  if (compiled === undefined && state.appError !== null) lines.push('', `_The app does not load: ${state.appError.message}_`)
  return { contents: { kind: 'markdown', value: lines.join('\n') }, range: route.range }
}

function paramsOf(route: StaticRoute): RouteJson['params'] {
  return parseSegments(route.path).flatMap((segment) => {
    if (segment.kind === 'static') return []
    const constraint = route.constraints.find((c) => c.param === segment.name)
    return [{ name: segment.name, optional: segment.optional, pattern: constraint?.pattern || null }]
  })
}

function handlerName(route: StaticRoute): string {
  switch (route.handler.kind) {
    case 'namespace':
      return route.handler.name
    case 'identifier':
      return route.handler.name
    case 'inline':
      return route.handler.name ?? 'anonymous'
    default:
      return 'anonymous'
  }
}

// ---------------------------------------------------------------------------
// Go to definition: from a route to its handler
// ---------------------------------------------------------------------------

export function definition(state: ServerState, document: TextDocument, params: { position: Position }): Location | null {
  if (!isRouteFile(state, document)) return null
  const file = documentFile(document)
  const model = state.model(file)
  const route = model && routeAt(model, params.position)
  if (!model || !route) return null
  return handlerLocation(state, file, model, route)
}

export function handlerLocation(state: ServerState, file: string, model: RouteFileModel, route: StaticRoute): Location | null {
  const handler = route.handler
  const at = (target: string, range: SourceRange): Location => ({ uri: pathToFileURL(target).href, range })
  if (handler.kind === 'inline' || handler.kind === 'unknown') return at(file, route.handlerRange)
  if (handler.kind === 'identifier' && handler.module === null) {
    const local = model.localFunctions.get(handler.name)
    return local ? at(file, local) : null
  }
  const module = handler.module
  if (module === null) return null
  const target = resolveModule(file, module)
  if (target === null) return null
  const text = state.readFile(target)
  if (text === null) return null
  const name = handler.kind === 'namespace' ? handler.name : (handler.importedName ?? handler.name)
  const range = findExport(text, name)
  return range ? at(target, range) : at(target, { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } })
}

/** A relative import as the loader resolves it (`.ts` written, `.js` for `.ts`, no extension, a folder's index). */
export function resolveModule(fromFile: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null
  const base = resolve(dirname(fromFile), specifier)
  const candidates = [base, base.replace(/\.([cm]?)js$/, '.$1ts'), `${base}.ts`, `${base}.js`, join(base, 'index.ts'), join(base, 'index.js')]
  return candidates.find((candidate) => existsSync(candidate) && !candidate.endsWith('/')) ?? null
}

// ---------------------------------------------------------------------------
// Diagnostics
// ---------------------------------------------------------------------------

/** Every route file's diagnostics (they depend on each other: a web route can be shadowed by an api one). */
export function workspaceDiagnostics(state: ServerState): Map<string, Diagnostic[]> {
  const files = state.routeFiles.flatMap((file) => {
    const model = state.model(file)
    return model ? [{ file, model }] : []
  })
  const found = analyseRoutes({
    files,
    builtins: (state.routeTable ?? []).filter((route) => route.source === null),
    aliasErrors: state.aliasErrors,
  })
  const byFile = new Map<string, Diagnostic[]>(state.routeFiles.map((file) => [file, []]))
  for (const diagnostic of found) byFile.get(diagnostic.file)?.push(toLspDiagnostic(diagnostic))

  // The app does not load for a reason not shown above: say so on the first route file.
  const explained = found.some((diagnostic) => diagnostic.severity === 'error')
  if (state.appError !== null && state.appError.code === 'E_APP_LOAD' && !explained && state.routeFiles[0]) {
    const at = errorLocation(state.appError.message, state.routeFiles)
    byFile.get(at?.file ?? state.routeFiles[0])!.push({
      range: { start: at?.position ?? { line: 0, character: 0 }, end: at?.position ?? { line: 0, character: 0 } },
      severity: SEVERITY.error,
      source: 'svc',
      code: 'app-load-error',
      message: `${state.appError.message}${state.appError.hint ? ` (fix: ${state.appError.hint})` : ''}`,
    })
  }
  return byFile
}

/**
 * Where a load error points (`.../routes/api.ts:18:6`, as a ParseError says),
 * when that is one of the route files: the diagnostic goes on that line.
 */
export function errorLocation(message: string, routeFiles: readonly string[]): { file: string; position: Position } | undefined {
  for (const match of message.matchAll(/(\S+?):(\d+):(\d+)/g)) {
    const file = routeFiles.find((candidate) => candidate === match[1] || candidate.endsWith(`/${match[1]}`))
    if (file !== undefined) return { file, position: { line: Math.max(0, Number(match[2]) - 1), character: Math.max(0, Number(match[3]) - 1) } }
  }
  return undefined
}

export function diagnostics(state: ServerState, document: TextDocument): Diagnostic[] {
  if (!isRouteFile(state, document)) return []
  return workspaceDiagnostics(state).get(documentFile(document)) ?? []
}

function toLspDiagnostic(diagnostic: RouteDiagnostic): Diagnostic {
  return {
    range: diagnostic.range,
    severity: SEVERITY[diagnostic.severity],
    source: 'svc',
    code: diagnostic.code,
    message: diagnostic.message,
    ...(diagnostic.related
      ? { relatedInformation: [{ location: { uri: pathToFileURL(diagnostic.related.file).href, range: diagnostic.related.range }, message: diagnostic.related.message }] }
      : {}),
  }
}

function contains(range: SourceRange, position: Position): boolean {
  const afterStart = position.line > range.start.line || (position.line === range.start.line && position.character >= range.start.character)
  const beforeEnd = position.line < range.end.line || (position.line === range.end.line && position.character <= range.end.character)
  return afterStart && beforeEnd
}
