/**
 * Route diagnostics, as plain functions over the statically read route files
 * (route-file.ts) and the built-in routes of the route table: duplicate
 * routes, routes shadowed by an earlier one (the router takes the first match
 * in definition order: built-in routes, then routes/api.ts, then
 * routes/web.ts), invalid constraint patterns, unknown middleware aliases
 * (as the app itself reports them, see alias-check.ts) and syntax errors.
 */
import { anchorConstraint, paramNames, parseSegments } from '../../framework/router/path-grammar.ts'
import type { RouteJson } from '../contract/routes.ts'
import type { RouteFileModel, SourceRange, StaticRoute } from './route-file.ts'

export type RouteDiagnosticCode =
  | 'duplicate-route'
  | 'shadowed-route'
  | 'invalid-constraint'
  | 'unknown-constraint-param'
  | 'unknown-middleware'
  | 'invalid-middleware'
  | 'syntax-error'
  | 'app-load-error'

export interface RouteDiagnostic {
  file: string
  range: SourceRange
  severity: 'error' | 'warning'
  code: RouteDiagnosticCode
  message: string
  related: { file: string; range: SourceRange; message: string } | null
}

export interface RouteFileInput {
  /** Absolute path. */
  file: string
  model: RouteFileModel
}

export interface AnalysisInput {
  /** In the order the app loads them: routes/api.ts, then routes/web.ts. */
  files: RouteFileInput[]
  /** Routes matched before the app's own (health, plugins): the table's routes without a source. */
  builtins: RouteJson[]
  /** Alias → the app's error for it (null: the alias resolves); aliases not checked are absent. */
  aliasErrors: ReadonlyMap<string, string | null>
}

interface Segment {
  kind: 'static' | 'param'
  value: string
  optional: boolean
  constraint: RegExp | null
}

interface Candidate {
  method: string
  path: string
  segments: Segment[]
  /** Null for built-in routes. */
  origin: { file: string; route: StaticRoute } | null
}

export function analyseRoutes(input: AnalysisInput): RouteDiagnostic[] {
  const diagnostics: RouteDiagnostic[] = []
  const candidates: Candidate[] = input.builtins.map((route) => ({
    method: route.method,
    path: route.path,
    segments: segmentsOf(route.path, new Map(route.params.map((param) => [param.name, compileAnchored(param.pattern)]))),
    origin: null,
  }))

  for (const { file, model } of input.files) {
    if (model.syntaxError) {
      diagnostics.push({
        file,
        range: model.syntaxError.range,
        severity: 'error',
        code: 'syntax-error',
        message: `Syntax error: ${model.syntaxError.message}`,
        related: null,
      })
    }
    const reportedMiddleware = new Set<string>()
    for (const route of model.routes) {
      const declared = paramNames(route.path)
      const constraints = new Map<string, RegExp | null>()
      for (const constraint of route.constraints) {
        if (constraint.error !== null) {
          diagnostics.push({
            file,
            range: constraint.range,
            severity: 'error',
            code: 'invalid-constraint',
            message: `Invalid constraint for {${constraint.param}}: ${constraint.error}`,
            related: null,
          })
        } else if (!declared.includes(constraint.param)) {
          diagnostics.push({
            file,
            range: constraint.range,
            severity: 'error',
            code: 'unknown-constraint-param',
            message: `where('${constraint.param}') names no parameter of ${route.writtenPath} (parameters: ${declared.map((name) => `{${name}}`).join(', ') || 'none'})`,
            related: null,
          })
        } else if (constraint.pattern !== '') {
          constraints.set(constraint.param, anchorConstraint(constraint.pattern, constraint.flags))
        }
      }
      for (const middleware of route.middleware) {
        if (!middleware.alias) continue
        const key = `${middleware.range.start.line}:${middleware.range.start.character}`
        if (reportedMiddleware.has(key)) continue // a group's middleware is reported once, not per route
        const error = input.aliasErrors.get(middleware.name)
        if (typeof error !== 'string') continue
        reportedMiddleware.add(key)
        diagnostics.push({
          file,
          range: middleware.range,
          severity: 'error',
          code: /^Unknown middleware alias/.test(error) ? 'unknown-middleware' : 'invalid-middleware',
          message: error,
          related: null,
        })
      }

      const candidate: Candidate = { method: route.method, path: route.path, segments: segmentsOf(route.path, constraints), origin: { file, route } }
      const earlier = candidates.find((other) => methodCovers(other.method, candidate.method) && pathCovers(other.segments, candidate.segments))
      if (earlier) diagnostics.push(shadowDiagnostic(candidate, earlier))
      candidates.push(candidate)
    }
  }
  return diagnostics
}

function shadowDiagnostic(route: Candidate, earlier: Candidate): RouteDiagnostic {
  const origin = route.origin!
  const duplicate = earlier.method === route.method && sameShape(earlier.segments, route.segments)
  const where = earlier.origin ? `line ${earlier.origin.route.callRange.start.line + 1}${earlier.origin.file === origin.file ? '' : ` of ${baseName(earlier.origin.file)}`}` : 'the built-in routes'
  const message = duplicate
    ? `Duplicate route: ${route.method} ${route.path} is already defined (${where}); this one is never reached`
    : `Never reached: ${earlier.method} ${earlier.path} (${where}) matches every request this route would`
  return {
    file: origin.file,
    range: origin.route.callRange,
    severity: duplicate ? 'error' : 'warning',
    code: duplicate ? 'duplicate-route' : 'shadowed-route',
    message,
    related: earlier.origin
      ? { file: earlier.origin.file, range: earlier.origin.route.callRange, message: `${earlier.method} ${earlier.path} is defined here` }
      : null,
  }
}

function methodCovers(earlier: string, later: string): boolean {
  return earlier === later || earlier === 'ANY'
}

/** True when every request path `later` matches is matched by `earlier`. */
export function pathCovers(earlier: Segment[], later: Segment[]): boolean {
  return variants(later).every((variant) => variants(earlier).some((option) => option.length === variant.length && option.every((segment, i) => segmentCovers(segment, variant[i]!))))
}

function segmentCovers(earlier: Segment, later: Segment): boolean {
  if (earlier.kind === 'static') return later.kind === 'static' && later.value === earlier.value
  if (earlier.constraint === null) return true
  if (later.kind === 'static') return earlier.constraint.test(later.value)
  return later.constraint !== null && sameRegex(earlier.constraint, later.constraint)
}

function sameShape(a: Segment[], b: Segment[]): boolean {
  return (
    a.length === b.length &&
    a.every((segment, i) => {
      const other = b[i]!
      if (segment.kind !== other.kind || segment.optional !== other.optional) return false
      if (segment.kind === 'static') return segment.value === other.value
      return segment.constraint === null ? other.constraint === null : other.constraint !== null && sameRegex(segment.constraint, other.constraint)
    })
  )
}

/** Trailing optional parameters make several paths: `/a/{b?}` is `/a` and `/a/{b}`. */
function variants(segments: Segment[]): Segment[][] {
  const required = segments.filter((segment) => !segment.optional)
  const optional = segments.filter((segment) => segment.optional)
  return optional.map((_, i) => [...required, ...optional.slice(0, i + 1)]).concat([required])
}

function segmentsOf(path: string, constraints: ReadonlyMap<string, RegExp | null>): Segment[] {
  return parseSegments(path).map((segment) =>
    segment.kind === 'static'
      ? { kind: 'static', value: segment.value, optional: false, constraint: null }
      : { kind: 'param', value: segment.name, optional: segment.optional, constraint: constraints.get(segment.name) ?? null },
  )
}

/** The table's patterns are already anchored sources. */
function compileAnchored(source: string | null): RegExp | null {
  if (source === null) return null
  try {
    return new RegExp(source)
  } catch {
    return null
  }
}

function sameRegex(a: RegExp, b: RegExp): boolean {
  return a.source === b.source && a.flags === b.flags
}

function baseName(file: string): string {
  return file.split(/[\\/]/).slice(-2).join('/')
}
