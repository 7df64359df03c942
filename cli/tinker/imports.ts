/**
 * `await import('./app/models/post.ts')` in `svc tinker`: Node's REPL
 * imports with Node's own loader, which refuses `.ts` files
 * (ERR_UNKNOWN_FILE_EXTENSION on Node 20) and, where it strips types, would
 * load a second copy of modules the app already has. Each line's `import(...)`
 * is therefore rewritten to `__svcImport(...)`, which loads a path with jiti,
 * as the CLI loads the app (the same module instances: `Post` imported is
 * the `Post` in scope), relative to the app's folder. A literal package name
 * (`import('valibot')`, `import('node:fs')`) is left to Node.
 */
import { parse } from '@babel/parser'
import { isAbsolute, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { importWithJiti } from '../project/import-file.ts'

/** The REPL's global that the rewritten lines call. */
export const TINKER_IMPORT = '__svcImport'

interface Node {
  type: string
  start?: number | null
  end?: number | null
  [key: string]: unknown
}

/** A specifier naming a file rather than a package: `./x.ts`, `../x`, `/abs/x.ts`, `file:///abs/x.ts`. */
function isPath(specifier: string): boolean {
  return specifier.startsWith('.') || isAbsolute(specifier) || specifier.startsWith('file:')
}

/**
 * `code` with each `import(x)` calling the tinker import instead, unless `x`
 * is a literal package name. Code that does not parse (a statement the REPL
 * is still collecting lines of) is returned as it is.
 */
export function rewriteImports(code: string): string {
  let program: Node
  try {
    program = parse(code, { sourceType: 'script', allowAwaitOutsideFunction: true, allowReturnOutsideFunction: true }).program as unknown as Node
  } catch {
    return code
  }
  const starts: number[] = []
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit)
    if (node === null || typeof node !== 'object' || typeof (node as Node).type !== 'string') return
    const current = node as Node
    if (current.type === 'CallExpression' && (current.callee as Node).type === 'Import') {
      const [argument] = current.arguments as Node[]
      const literalPackage = argument?.type === 'StringLiteral' && !isPath(argument.value as string)
      if (!literalPackage) starts.push((current.callee as Node).start!)
    }
    for (const [key, value] of Object.entries(current)) if (key !== 'loc' && typeof value === 'object') visit(value)
  }
  visit(program)
  let rewritten = code
  for (const start of starts.sort((a, b) => b - a)) rewritten = `${rewritten.slice(0, start)}${TINKER_IMPORT}${rewritten.slice(start + 'import'.length)}`
  return rewritten
}

/** The import a rewritten line calls: a path through jiti, relative to `baseDir`; a package name through Node. */
export function tinkerImport(baseDir: string): (specifier: unknown) => Promise<unknown> {
  return async (specifier) => {
    const text = String(specifier)
    if (!isPath(text)) return import(text)
    return importWithJiti(text.startsWith('file:') ? fileURLToPath(text) : resolve(baseDir, text))
  }
}
