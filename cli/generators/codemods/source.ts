/**
 * Small, safe source edits of TypeScript files the app owns: parse first
 * (@babel/parser), find the one shape an edit knows, insert text at positions
 * of that tree, and keep every other byte as it was (comments, formatting).
 * An edit that does not find its shape says so, and its file is left alone.
 */
import { parse } from '@babel/parser'

// Babel's tree is walked generically: nodes are plain objects with a `type` and positions.
export type Node = { type: string; start: number; end: number; [key: string]: unknown }

export interface Insertion {
  at: number
  text: string
}

/** The parsed module, or why it does not parse. */
export function parseModule(source: string): { program: Node } | { error: string } {
  try {
    const file = parse(source, { sourceType: 'module', plugins: ['typescript'] }) as unknown as { program: Node }
    return { program: file.program }
  } catch (error) {
    return { error: `it does not parse (${(error as Error).message})` }
  }
}

export function applyInsertions(source: string, insertions: readonly Insertion[]): string {
  let result = source
  for (const { at, text } of [...insertions].sort((a, b) => b.at - a.at)) result = result.slice(0, at) + text + result.slice(at)
  return result
}

/** The whitespace that starts the line holding `position`. */
export function indentationAt(source: string, position: number): string {
  const lineStart = source.lastIndexOf('\n', position - 1) + 1
  return /^[ \t]*/.exec(source.slice(lineStart))![0]
}

/** The position just after the end of the line holding `position` (before its newline). */
export function lineEnd(source: string, position: number): number {
  const end = source.indexOf('\n', position)
  return end === -1 ? source.length : end
}

export function sameLine(source: string, a: number, b: number): boolean {
  return !source.slice(Math.min(a, b), Math.max(a, b)).includes('\n')
}

export function statements(program: Node): Node[] {
  return program.body as Node[]
}

/** Every name the module's top level declares (imports, variables, functions, classes). */
export function topLevelNames(program: Node): Set<string> {
  const names = new Set<string>()
  for (const statement of statements(program)) {
    if (statement.type === 'ImportDeclaration') {
      for (const specifier of statement.specifiers as Node[]) names.add((specifier.local as Node).name as string)
      continue
    }
    const declaration = statement.type === 'ExportNamedDeclaration' ? (statement.declaration as Node | null) : statement
    if (declaration === null) continue
    if (declaration.type === 'VariableDeclaration') {
      for (const declarator of declaration.declarations as Node[]) {
        const id = declarator.id as Node
        if (id.type === 'Identifier') names.add(id.name as string)
      }
    } else if (declaration.id !== undefined && declaration.id !== null) {
      names.add((declaration.id as Node).name as string)
    }
  }
  return names
}

/** The local name an import of `specifier` binds (`*` for `import * as x`, `default`, or a named export), if any. */
export function importedAs(program: Node, specifier: string, imported: string): string | undefined {
  for (const statement of statements(program)) {
    if (statement.type !== 'ImportDeclaration' || (statement.source as Node).value !== specifier) continue
    for (const each of statement.specifiers as Node[]) {
      const kind =
        each.type === 'ImportNamespaceSpecifier' ? '*' : each.type === 'ImportDefaultSpecifier' ? 'default' : (((each.imported as Node).name ?? (each.imported as Node).value) as string)
      if (kind === imported) return (each.local as Node).name as string
    }
  }
  return undefined
}

/** Where new import lines go: after the last import, else before the first statement (after its leading comment). */
export function importInsertion(source: string, program: Node, lines: readonly string[]): Insertion | undefined {
  if (lines.length === 0) return undefined
  const imports = statements(program).filter((statement) => statement.type === 'ImportDeclaration')
  const last = imports.at(-1)
  if (last !== undefined) return { at: lineEnd(source, last.end), text: lines.map((line) => `\n${line}`).join('') }
  const first = statements(program)[0]
  if (first === undefined) return { at: source.length, text: `${source.endsWith('\n') || source === '' ? '' : '\n'}${lines.join('\n')}\n` }
  return { at: first.start, text: `${lines.join('\n')}\n\n` }
}

/**
 * Text appended as the last item of a list written between `open` and
 * `close` (an array's elements, an object's properties): on its own line,
 * indented like the others, when the list spans lines; else after `, `.
 */
export function appendToList(source: string, list: Node, items: readonly Node[], text: string): Insertion {
  const close = list.end - 1
  const last = items.at(-1)
  if (last === undefined) {
    const inner = source.slice(list.start + 1, close)
    if (inner.includes('\n')) {
      const indent = `${indentationAt(source, close)}  `
      return { at: list.start + 1, text: `\n${indent}${text},` }
    }
    return { at: list.start + 1, text: list.type === 'ObjectExpression' ? ` ${text} ` : text }
  }
  const between = source.slice(last.end, close)
  const trailingComma = /^\s*,/.test(between)
  if (sameLine(source, list.start, close)) return { at: last.end, text: `, ${text}` }
  const indent = indentationAt(source, last.start)
  return trailingComma ? { at: last.end + between.indexOf(',') + 1, text: `\n${indent}${text},` } : { at: last.end, text: `,\n${indent}${text}` }
}

/** `export default <expression>` (or `export default name` of a top-level `const name = <expression>`). */
export function defaultExport(program: Node): Node | undefined {
  const exported = statements(program).find((statement) => statement.type === 'ExportDefaultDeclaration')?.declaration as Node | undefined
  if (exported?.type !== 'Identifier') return exported
  for (const statement of statements(program)) {
    if (statement.type !== 'VariableDeclaration') continue
    for (const declarator of statement.declarations as Node[]) {
      if ((declarator.id as Node).type === 'Identifier' && (declarator.id as Node).name === exported.name) return (declarator.init as Node | null) ?? undefined
    }
  }
  return undefined
}

/** `f(...)` where f is `name` (or `x.name`). */
export function isCallOf(node: Node | undefined, name: string): node is Node {
  if (node?.type !== 'CallExpression') return false
  const callee = node.callee as Node
  return (callee.type === 'Identifier' && callee.name === name) || (callee.type === 'MemberExpression' && (callee.property as Node).name === name)
}

/** The value of `key` in an object literal (`{ key: value }`, `{ 'key': value }`). */
export function property(object: Node, key: string): Node | undefined {
  for (const each of object.properties as Node[]) {
    if (each.type !== 'ObjectProperty') continue
    const name = (each.key as Node).name ?? (each.key as Node).value
    if (name === key) return each
  }
  return undefined
}

/** Strips `x satisfies T`, `x as T`, `(x)`. */
export function unwrap(node: Node | undefined): Node | undefined {
  let current = node
  while (current !== undefined && (current.type === 'TSSatisfiesExpression' || current.type === 'TSAsExpression' || current.type === 'ParenthesizedExpression')) {
    current = current.expression as Node
  }
  return current
}

/** A name not yet taken: `name`, else `name` + `suffix`, else numbered. */
export function freeName(taken: ReadonlySet<string>, name: string, suffix: string): string {
  if (!taken.has(name)) return name
  if (!taken.has(`${name}${suffix}`)) return `${name}${suffix}`
  for (let n = 2; ; n++) if (!taken.has(`${name}${suffix}${n}`)) return `${name}${suffix}${n}`
}
