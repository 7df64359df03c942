/**
 * Registers a resource's routes in `routes/api.ts`: inside the
 * `defineRoutes((r) => { ... })` callback, in its current (highest) version
 * group when it has one (`r.version(2, (r) => { ... })`), before its
 * fallback, with the controller's and schemas' imports. Routes the file
 * already has (the five, in that place) are not added again; other routes
 * on the resource's paths are a conflict (the resource cannot be added). A file
 * whose shape is not that one is left untouched, and the lines to add are
 * printed instead.
 */
import { API_PREFIX, joinPaths } from '../../../framework/router/path-grammar.ts'
import { parseRouteFile } from '../../lsp/route-file.ts'
import type { EditOutcome } from '../write-plan.ts'
import {
  applyInsertions,
  defaultExport,
  freeName,
  importedAs,
  importInsertion,
  indentationAt,
  isCallOf,
  lineEnd,
  parseModule,
  sameLine,
  statements,
  topLevelNames,
  type Insertion,
  type Node,
} from './source.ts'

export interface ResourceRoutes {
  /** `/products`: the collection's path as written in the file. */
  path: string
  /** The controller module's specifier from routes/api.ts, and the name it is imported as. */
  controller: { specifier: string; alias: string }
  /** Named imports the routes use (schemas): specifier → names. */
  imports: ReadonlyArray<{ specifier: string; names: readonly string[] }>
  /** The route lines, given the registrar's name and the controller's local name. */
  lines(registrar: string, controller: string): string[]
}

export interface RoutesPlacement {
  /** The full path prefix the routes get: `/api/v1` in a version group, else `/api`. */
  prefix: string
}

interface Target {
  registrar: string
  body: Node
  prefix: string
}

/** Where the routes will go (their prefix), without changing anything: the generated test needs their full path. */
export function routesPlacement(source: string | undefined): RoutesPlacement {
  if (source === undefined) return { prefix: API_PREFIX }
  const parsed = parseModule(source)
  if ('error' in parsed) return { prefix: API_PREFIX }
  return { prefix: findTarget(parsed.program)?.prefix ?? API_PREFIX }
}

export function registerResourceRoutes(source: string | undefined, routes: ResourceRoutes): EditOutcome {
  const manual = (reason: string): EditOutcome => ({ status: 'manual', reason, lines: manualLines(routes) })
  if (source === undefined) return { status: 'changed', contents: newRoutesFile(routes) }
  const parsed = parseModule(source)
  if ('error' in parsed) return manual(`routes/api.ts: ${parsed.error}`)
  const { program } = parsed
  const target = findTarget(program)
  if (target === undefined) return manual('routes/api.ts has no `export default defineRoutes((r) => { ... })` with a block body')

  const full = joinPaths(target.prefix, routes.path)
  const existing = parseRouteFile(source, API_PREFIX).routes.filter((route) => route.path === full || route.path === `${full}/{id}`)
  if (existing.length > 0) {
    // All five: the resource is registered (a second run). Some other route on its paths: another resource's, or the app's own.
    const wanted = [`GET ${full}`, `GET ${full}/{id}`, `POST ${full}`, `PUT ${full}/{id}`, `DELETE ${full}/{id}`]
    const found = new Set(existing.map((route) => `${route.method} ${route.path}`))
    if (wanted.every((route) => found.has(route))) return { status: 'unchanged' }
    return { status: 'conflict', reason: `routes/api.ts already has ${[...found].join(', ')}, not the five routes of this resource` }
  }

  const taken = topLevelNames(program)
  const insertions: Insertion[] = []
  const importLines: string[] = []
  let controller = importedAs(program, routes.controller.specifier, '*')
  if (controller === undefined) {
    controller = freeName(taken, routes.controller.alias, 'Controller')
    importLines.push(`import * as ${controller} from '${routes.controller.specifier}'`)
  }
  for (const { specifier, names } of routes.imports) {
    const missing = names.filter((name) => importedAs(program, specifier, name) !== name)
    const clash = missing.find((name) => taken.has(name))
    if (clash !== undefined) return manual(`routes/api.ts already declares ${clash} (not from ${specifier})`)
    if (missing.length > 0) importLines.push(`import { ${missing.join(', ')} } from '${specifier}'`)
  }
  insertions.push(importInsertion(source, program, importLines) ?? { at: 0, text: '' })
  insertions.push(routesInsertion(source, target, routes.lines(target.registrar, controller)))
  return { status: 'changed', contents: applyInsertions(source, insertions) }
}

/** The defineRoutes callback, or its highest `r.version(n, (r) => { ... })` group. */
function findTarget(program: Node): Target | undefined {
  const call = defaultExport(program)
  if (!isCallOf(call, 'defineRoutes')) return undefined
  const callback = blockCallback((call.arguments as Node[])[0])
  if (callback === undefined) return undefined
  let target: Target = { ...callback, prefix: API_PREFIX }
  let highest = 0
  for (const statement of statements(callback.body)) {
    const expression = statement.type === 'ExpressionStatement' ? (statement.expression as Node) : undefined
    if (expression?.type !== 'CallExpression') continue
    const callee = expression.callee as Node
    if (callee.type !== 'MemberExpression' || (callee.object as Node).name !== callback.registrar || (callee.property as Node).name !== 'version') continue
    const [version, define] = expression.arguments as Node[]
    const inner = blockCallback(define)
    if (version?.type === 'NumericLiteral' && inner !== undefined && (version.value as number) > highest) {
      highest = version.value as number
      target = { ...inner, prefix: joinPaths(API_PREFIX, `v${highest}`) }
    }
  }
  return target
}

/** `(r) => { ... }` or `function (r) { ... }`: its parameter's name and block. */
function blockCallback(node: Node | undefined): { registrar: string; body: Node } | undefined {
  if (node?.type !== 'ArrowFunctionExpression' && node?.type !== 'FunctionExpression') return undefined
  const param = (node.params as Node[])[0]
  const body = node.body as Node
  if (param?.type !== 'Identifier' || body.type !== 'BlockStatement') return undefined
  return { registrar: param.name as string, body }
}

/** Before the block's `r.fallback(...)`, else after its last statement; on lines of their own, indented like the block. */
function routesInsertion(source: string, target: Target, lines: string[]): Insertion {
  const body = statements(target.body)
  const close = target.body.end - 1
  const fallback = body.find((statement) => {
    const expression = statement.type === 'ExpressionStatement' ? (statement.expression as Node) : undefined
    const callee = expression?.type === 'CallExpression' ? (expression.callee as Node) : undefined
    return callee?.type === 'MemberExpression' && (callee.object as Node).name === target.registrar && (callee.property as Node).name === 'fallback'
  })
  const ownLine = body[0] !== undefined && !sameLine(source, target.body.start, body[0].start)
  const indent = ownLine ? indentationAt(source, body[0]!.start) : `${indentationAt(source, target.body.start)}  `
  const block = lines.map((line) => `${indent}${line}`).join('\n')
  if (fallback !== undefined && !sameLine(source, target.body.start, fallback.start)) {
    const lineStart = source.lastIndexOf('\n', fallback.start - 1) + 1
    // Comments just above the fallback stay with it.
    const leading = (fallback.leadingComments as Node[] | undefined)?.[0]
    const at = leading !== undefined && !sameLine(source, target.body.start, leading.start) ? source.lastIndexOf('\n', leading.start - 1) + 1 : lineStart
    return { at, text: `${block}\n\n` }
  }
  const last = body.at(-1)
  if (last === undefined || sameLine(source, last.end, close)) {
    return { at: close, text: `\n${block}\n${indentationAt(source, close)}` }
  }
  return { at: lineEnd(source, last.end), text: `\n\n${block}` }
}

function manualLines(routes: ResourceRoutes): string[] {
  return [
    `import * as ${routes.controller.alias} from '${routes.controller.specifier}'`,
    ...routes.imports.map(({ specifier, names }) => `import { ${names.join(', ')} } from '${specifier}'`),
    '',
    ...routes.lines('r', routes.controller.alias),
  ]
}

function newRoutesFile(routes: ResourceRoutes): string {
  return `/** Every route here is under /api. */
import { defineRoutes } from 'svc'
${manualLines(routes).filter((line) => line.startsWith('import')).join('\n')}

export default defineRoutes((r) => {
${routes.lines('r', routes.controller.alias).map((line) => `  ${line}`).join('\n')}
})
`
}
