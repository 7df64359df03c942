/**
 * Reads a route file (`routes/api.ts`, `routes/web.ts`) without running it:
 * every `r.get(path, handler)` (and post, put, patch, delete, any) with its
 * chained `.where()`, `.middleware()` and `.throttle()`, inside its
 * `group()` / `version()` scopes, with source positions. This is what the
 * language server needs where running the file cannot help: positions, and
 * files whose app does not load (an invalid constraint or an unknown alias
 * stops the app at startup, and these are exactly what it must point at).
 *
 * Paths are joined, prefixed and constraints anchored by the framework's own
 * routing grammar (framework/router/path-grammar.ts).
 */
import { parse } from '@babel/parser'
import { anchorConstraint, joinPaths } from '../../framework/router/path-grammar.ts'

/** 0-based line and character, as LSP positions. */
export interface SourcePosition {
  line: number
  character: number
}

export interface SourceRange {
  start: SourcePosition
  end: SourcePosition
}

export type HandlerReference =
  /** `posts.listPosts` with `import * as posts from '...'`. */
  | { kind: 'namespace'; namespace: string; name: string; module: string | null }
  /** `showPost`: an import, or a function of this file. */
  | { kind: 'identifier'; name: string; module: string | null; importedName: string | null }
  /** An inline function (its name, when it has one). */
  | { kind: 'inline'; name: string | null }
  | { kind: 'unknown' }

export interface StaticConstraint {
  param: string
  /** The pattern source as written (regex literal body or string). */
  pattern: string
  flags: string
  range: SourceRange
  /** Why `new RegExp` rejects it, null when valid. */
  error: string | null
}

export interface StaticMiddleware {
  /** The alias string (`auth:admin`) or the function's name. */
  name: string
  alias: boolean
  range: SourceRange
  /** True when it comes from an enclosing group()/version(). */
  inherited: boolean
}

export interface StaticRoute {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'ANY'
  /** The full path, prefix (`/api`) and groups applied. */
  path: string
  /** The path as written in the call. */
  writtenPath: string
  /** The whole statement-level expression: `r.get(...).where(...)`. */
  range: SourceRange
  /** The `r.get` part (where the CodeLens goes). */
  callRange: SourceRange
  pathRange: SourceRange
  handler: HandlerReference
  handlerRange: SourceRange
  constraints: StaticConstraint[]
  /** Group middleware first, then the route's own, in order. */
  middleware: StaticMiddleware[]
  group: string | null
  version: number | null
}

export interface ImportBinding {
  /** The module specifier as written. */
  module: string
  /** `*` for a namespace import, `default`, or the imported name. */
  imported: string
}

export interface RouteFileModel {
  routes: StaticRoute[]
  /** Local name → import. */
  imports: Map<string, ImportBinding>
  /** Functions declared at the top of this file (name → range of the name). */
  localFunctions: Map<string, SourceRange>
  /** A syntax error that stopped the parse, with its place. */
  syntaxError: { message: string; range: SourceRange } | null
}

const ROUTE_METHODS = new Map([
  ['get', 'GET'],
  ['post', 'POST'],
  ['put', 'PUT'],
  ['patch', 'PATCH'],
  ['delete', 'DELETE'],
  ['any', 'ANY'],
] as const)

interface Scope {
  registrar: string
  /** The full prefix (with the file's `/api`). */
  prefix: string
  /** The prefix inside the definition, as the framework names groups (`/v1`, `/admin`). */
  localPrefix: string
  middleware: StaticMiddleware[]
  group: string | null
  version: number | null
}

// Babel's AST is walked generically: nodes are plain objects with a `type`.
type Node = { type: string; start?: number | null; end?: number | null; loc?: { start: Loc; end: Loc } | null; [key: string]: unknown }
type Loc = { line: number; column: number }

/**
 * While an edit does not parse, the document keeps the routes of the last
 * text that did (its CodeLens stay, at their old lines, instead of all
 * vanishing at each keystroke); the new syntax error is still reported.
 */
export function withLastParsed(model: RouteFileModel, lastParsed: RouteFileModel | undefined): RouteFileModel {
  if (model.syntaxError === null || lastParsed === undefined) return model
  return { ...lastParsed, syntaxError: model.syntaxError }
}

export function parseRouteFile(text: string, prefix: string): RouteFileModel {
  const model: RouteFileModel = { routes: [], imports: new Map(), localFunctions: new Map(), syntaxError: null }
  let program: Node
  try {
    const file = parse(text, { sourceType: 'module', plugins: ['typescript'], errorRecovery: true }) as unknown as Node & {
      errors?: Array<{ message: string; loc?: Loc }>
    }
    program = file.program as Node
    const first = file.errors?.[0]
    if (first) model.syntaxError = { message: first.message, range: pointRange(first.loc) }
  } catch (error) {
    const loc = (error as { loc?: Loc }).loc
    model.syntaxError = { message: (error as Error).message, range: pointRange(loc) }
    return model
  }

  for (const statement of program.body as Node[]) {
    collectTopLevel(statement, model)
  }
  walk(program, (node) => {
    if (node.type !== 'CallExpression') return true
    const callee = node.callee as Node
    if (callee.type === 'Identifier' && callee.name === 'defineRoutes') {
      const define = (node.arguments as Node[])[0]
      const registrar = define && firstParamName(define)
      if (define && registrar) {
        visitBody(define, { registrar, prefix, localPrefix: '/', middleware: [], group: null, version: null }, model)
      }
      return false
    }
    return true
  })
  return model
}

function collectTopLevel(statement: Node, model: RouteFileModel): void {
  if (statement.type === 'ImportDeclaration') {
    const module = (statement.source as Node).value as string
    for (const specifier of statement.specifiers as Node[]) {
      const local = (specifier.local as Node).name as string
      if (specifier.type === 'ImportNamespaceSpecifier') model.imports.set(local, { module, imported: '*' })
      else if (specifier.type === 'ImportDefaultSpecifier') model.imports.set(local, { module, imported: 'default' })
      else {
        const imported = specifier.imported as Node
        model.imports.set(local, { module, imported: (imported.name ?? imported.value) as string })
      }
    }
    return
  }
  const declaration = statement.type === 'ExportNamedDeclaration' ? (statement.declaration as Node | null) : statement
  if (!declaration) return
  if (declaration.type === 'FunctionDeclaration' && declaration.id) {
    model.localFunctions.set((declaration.id as Node).name as string, rangeOf(declaration.id as Node))
  }
  if (declaration.type === 'VariableDeclaration') {
    for (const declarator of declaration.declarations as Node[]) {
      const id = declarator.id as Node
      const init = declarator.init as Node | null
      if (id.type === 'Identifier' && init && /Function/.test(init.type)) model.localFunctions.set(id.name as string, rangeOf(id))
    }
  }
}

/** Visits the body of a `(r) => { ... }` callback with `scope`. */
function visitBody(fn: Node, scope: Scope, model: RouteFileModel): void {
  const body = fn.body as Node | undefined
  if (!body) return
  if (body.type !== 'BlockStatement') return visitChain(body, scope, model) // (r) => r.get(...)
  walk(body, (node) => {
    if (node === body) return true
    // A nested callback is visited only through group()/version() (or as a closure, in visitChain).
    if (/Function/.test(node.type)) return false
    if (node.type === 'ExpressionStatement') {
      visitChain(node.expression as Node, scope, model)
      return false
    }
    if (node.type === 'ReturnStatement') {
      if (node.argument) visitChain(node.argument as Node, scope, model)
      return false
    }
    return true // if, for, blocks: their statements are visited
  })
}

/** One statement-level expression: a route chain, a group(), a version(), or something else. */
function visitChain(expression: Node, scope: Scope, model: RouteFileModel): void {
  // Unwind `r.get(...).where(...).middleware(...)` into its calls, innermost first.
  const calls: Array<{ name: string; node: Node; object: Node }> = []
  let current: Node = expression
  while (current.type === 'CallExpression' && (current.callee as Node).type === 'MemberExpression') {
    const member = current.callee as Node
    const property = member.property as Node
    if (property.type !== 'Identifier') return
    calls.unshift({ name: property.name as string, node: current, object: member.object as Node })
    current = member.object as Node
  }
  const root = calls[0]
  if (!root || current.type !== 'Identifier' || current.name !== scope.registrar) {
    // Not a registrar call (a helper call, an if...): look inside for nested statements.
    walk(expression, (node) => {
      if (node === expression) return true
      if (node.type === 'ArrowFunctionExpression' || node.type === 'FunctionExpression') {
        visitBody(node, scope, model)
        return false
      }
      return true
    })
    return
  }
  const args = root.node.arguments as Node[]
  if (root.name === 'group' || root.name === 'version') {
    visitScope(root.name, args, scope, model)
    return
  }
  const method = ROUTE_METHODS.get(root.name as 'get')
  if (method === undefined) return
  const pathNode = args[0]
  const handlerNode = args[1]
  const writtenPath = pathNode ? stringValue(pathNode) : null
  if (writtenPath === null || !handlerNode) return

  const route: StaticRoute = {
    method,
    path: joinPaths(scope.prefix, writtenPath),
    writtenPath,
    range: rangeOf(expression),
    callRange: rangeBetween(root.object, root.node.callee as Node),
    pathRange: rangeOf(pathNode!),
    handler: handlerReference(handlerNode, model),
    handlerRange: rangeOf(handlerNode),
    constraints: [],
    middleware: [...scope.middleware],
    group: scope.group,
    version: scope.version,
  }
  for (const call of calls.slice(1)) {
    const callArgs = call.node.arguments as Node[]
    if (call.name === 'where') {
      const [first, second] = callArgs
      if (first && first.type === 'ObjectExpression') {
        for (const property of first.properties as Node[]) {
          const key = property.key as Node | undefined
          const name = key ? ((key.name ?? key.value) as string | undefined) : undefined
          if (name !== undefined && property.value) route.constraints.push(constraintOf(name, property.value as Node))
        }
      } else if (first && second) {
        const name = stringValue(first)
        if (name !== null) route.constraints.push(constraintOf(name, second))
      }
    } else if (call.name === 'middleware') {
      route.middleware.push(...callArgs.map((arg) => middlewareOf(arg, false)))
    } else if (call.name === 'throttle') {
      const [max, decay] = callArgs.map((arg) => (arg.type === 'NumericLiteral' ? String(arg.value) : '?'))
      route.middleware.push({ name: `throttle:${max},${decay}`, alias: true, range: rangeOf(call.node.callee as Node), inherited: false })
    }
  }
  model.routes.push(route)
}

function visitScope(kind: 'group' | 'version', args: Node[], scope: Scope, model: RouteFileModel): void {
  let prefix = scope.prefix
  let localPrefix = scope.localPrefix
  let middleware = scope.middleware
  let group = scope.group
  let version = scope.version
  let define: Node | undefined
  const addMiddleware = (options: Node | undefined) => {
    const list = options && objectProperty(options, 'middleware')
    if (list && list.type === 'ArrayExpression') {
      middleware = [...middleware, ...(list.elements as Node[]).filter(Boolean).map((element) => middlewareOf(element, true))]
    }
  }
  if (kind === 'group') {
    const [options, callback] = args
    define = callback
    const written = options ? (stringValue(options) ?? stringValue(objectProperty(options, 'prefix'))) : null
    if (written !== null) {
      prefix = joinPaths(prefix, written)
      localPrefix = joinPaths(localPrefix, written)
    }
    if (options && options.type === 'ObjectExpression') addMiddleware(options)
    group = localPrefix === '/' ? group : localPrefix
  } else {
    const [versionNode, callback, options] = args
    define = callback
    const number = versionNode && versionNode.type === 'NumericLiteral' ? (versionNode.value as number) : null
    if (number !== null) {
      prefix = joinPaths(prefix, `v${number}`)
      localPrefix = joinPaths(localPrefix, `v${number}`)
      version = number
      group = localPrefix
    }
    addMiddleware(options)
  }
  const registrar = define && firstParamName(define)
  if (define && registrar) visitBody(define, { registrar, prefix, localPrefix, middleware, group, version }, model)
}

function constraintOf(param: string, node: Node): StaticConstraint {
  let pattern: string | null = null
  let flags = ''
  if (node.type === 'RegExpLiteral') {
    pattern = node.pattern as string
    flags = node.flags as string
  } else {
    pattern = stringValue(node)
  }
  if (pattern === null) return { param, pattern: '', flags: '', range: rangeOf(node), error: null } // computed: not checkable
  let error: string | null = null
  try {
    anchorConstraint(pattern, flags)
  } catch (cause) {
    error = (cause as Error).message
  }
  return { param, pattern, flags, range: rangeOf(node), error }
}

function middlewareOf(node: Node, inherited: boolean): StaticMiddleware {
  const alias = stringValue(node)
  if (alias !== null) return { name: alias, alias: true, range: rangeOf(node), inherited }
  const name = node.type === 'Identifier' ? (node.name as string) : node.type === 'MemberExpression' ? memberText(node) : 'anonymous'
  return { name, alias: false, range: rangeOf(node), inherited }
}

function handlerReference(node: Node, model: RouteFileModel): HandlerReference {
  if (node.type === 'MemberExpression' && (node.object as Node).type === 'Identifier' && (node.property as Node).type === 'Identifier') {
    const namespace = (node.object as Node).name as string
    const binding = model.imports.get(namespace)
    return { kind: 'namespace', namespace, name: (node.property as Node).name as string, module: binding?.imported === '*' ? binding.module : null }
  }
  if (node.type === 'Identifier') {
    const binding = model.imports.get(node.name as string)
    return { kind: 'identifier', name: node.name as string, module: binding?.module ?? null, importedName: binding?.imported ?? null }
  }
  if (/Function/.test(node.type)) {
    const id = node.id as Node | null | undefined
    return { kind: 'inline', name: id ? (id.name as string) : null }
  }
  return { kind: 'unknown' }
}

function firstParamName(fn: Node): string | null {
  if (!/Function/.test(fn.type)) return null
  const param = (fn.params as Node[] | undefined)?.[0]
  return param && param.type === 'Identifier' ? (param.name as string) : null
}

function objectProperty(node: Node | undefined, name: string): Node | undefined {
  if (!node || node.type !== 'ObjectExpression') return undefined
  const property = (node.properties as Node[]).find((p) => {
    const key = p.key as Node | undefined
    return p.type === 'ObjectProperty' && key && (key.name === name || key.value === name)
  })
  return property?.value as Node | undefined
}

function stringValue(node: Node | undefined): string | null {
  if (!node) return null
  if (node.type === 'StringLiteral') return node.value as string
  if (node.type === 'TemplateLiteral' && (node.expressions as Node[]).length === 0) {
    return ((node.quasis as Node[])[0]!.value as { cooked: string }).cooked
  }
  return null
}

function memberText(node: Node): string {
  const object = node.object as Node
  const property = node.property as Node
  const left = object.type === 'Identifier' ? (object.name as string) : object.type === 'MemberExpression' ? memberText(object) : '?'
  return `${left}.${property.type === 'Identifier' ? (property.name as string) : '?'}`
}

function walk(node: Node, visit: (node: Node) => boolean): void {
  if (!visit(node)) return
  for (const key of Object.keys(node)) {
    if (key === 'loc' || key === 'extra' || key === 'leadingComments' || key === 'trailingComments' || key === 'innerComments') continue
    const value = node[key]
    if (Array.isArray(value)) {
      for (const child of value) if (child && typeof child === 'object' && typeof (child as Node).type === 'string') walk(child as Node, visit)
    } else if (value && typeof value === 'object' && typeof (value as Node).type === 'string') {
      walk(value as Node, visit)
    }
  }
}

function toPosition(loc: Loc): SourcePosition {
  return { line: loc.line - 1, character: loc.column }
}

export function rangeOf(node: Node): SourceRange {
  return { start: toPosition(node.loc!.start), end: toPosition(node.loc!.end) }
}

function rangeBetween(from: Node, to: Node): SourceRange {
  return { start: toPosition(from.loc!.start), end: toPosition(to.loc!.end) }
}

function pointRange(loc: Loc | undefined): SourceRange {
  const position = loc ? toPosition(loc) : { line: 0, character: 0 }
  return { start: position, end: { line: position.line, character: position.character + 1 } }
}

/** Where a module exports `name` (`export function name`, `export const name =`, `export { x as name }`). */
export function findExport(text: string, name: string): SourceRange | null {
  let program: Node
  try {
    program = (parse(text, { sourceType: 'module', plugins: ['typescript'], errorRecovery: true }) as unknown as Node).program as Node
  } catch {
    return null
  }
  const locals = new Map<string, SourceRange>()
  for (const statement of program.body as Node[]) {
    const model: RouteFileModel = { routes: [], imports: new Map(), localFunctions: locals, syntaxError: null }
    collectTopLevel(statement, model)
  }
  for (const statement of program.body as Node[]) {
    if (statement.type === 'ExportNamedDeclaration') {
      const declaration = statement.declaration as Node | null
      if (declaration) {
        if ((declaration.type === 'FunctionDeclaration' || declaration.type === 'ClassDeclaration') && (declaration.id as Node | null)?.name === name) {
          return rangeOf(declaration.id as Node)
        }
        if (declaration.type === 'VariableDeclaration') {
          for (const declarator of declaration.declarations as Node[]) {
            const id = declarator.id as Node
            if (id.type === 'Identifier' && id.name === name) return rangeOf(id)
          }
        }
      }
      for (const specifier of (statement.specifiers as Node[] | undefined) ?? []) {
        const exported = specifier.exported as Node
        if ((exported.name ?? exported.value) === name) {
          const local = (specifier.local as Node | undefined)?.name as string | undefined
          return (local ? locals.get(local) : undefined) ?? rangeOf(exported)
        }
      }
    }
    if (name === 'default' && statement.type === 'ExportDefaultDeclaration') return rangeOf(statement)
  }
  return null
}
