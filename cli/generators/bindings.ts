/**
 * A name is refused when the code generated for it would bind one identifier
 * twice: `make:crud HttpError` declares `HttpError` where the controller also
 * imports it from 'svc'; `make:crud SortKey` imports the model `SortKey` where
 * the repository imports svc's `SortKey`. Checked on each rendered file (the
 * app's stubs too), from its imports: the list of taken names is what the
 * templates import, so it cannot drift from them.
 */
import { parse } from '@babel/parser'
import { CliError } from '../output/cli-error.ts'
import { statements, type Node } from './codemods/source.ts'
import type { Names } from './names.ts'
import type { GeneratedFile } from './template.ts'

/** Throws E_BAD_NAME when the file imports a name twice, or imports one it also declares. */
export function checkBindings(file: GeneratedFile, names: Names): void {
  if (!/\.[cm]?[jt]sx?$/.test(file.path)) return
  const parsed = parsedModule(file.contents)
  // A stub may write something that does not parse: that is the stub's business (tsc will say so), not the name's.
  if (parsed === undefined) return
  const imported = new Map<string, string>()
  const refuse = (name: string, from: string, clash: string) => {
    throw new CliError('E_BAD_NAME', `"${names.input}" would make ${file.path} bind ${name} twice: it imports ${name} from '${from}', and ${clash}`, {
      hint: `the generated code uses ${name} itself: pick a more specific name (not ${names.input})`,
    })
  }
  for (const statement of statements(parsed.program)) {
    if (statement.type !== 'ImportDeclaration') continue
    const from = (statement.source as Node).value as string
    for (const specifier of statement.specifiers as Node[]) {
      const local = (specifier.local as Node).name as string
      const earlier = imported.get(local)
      if (earlier !== undefined) refuse(local, earlier, `also from '${from}'`)
      imported.set(local, from)
    }
  }
  for (const name of declaredNames(parsed.program)) {
    const from = imported.get(name)
    if (from !== undefined) refuse(name, from, 'declares it too')
  }
}

/** Parsed with error recovery: Babel's own "has already been declared" must not hide which name it is. */
function parsedModule(source: string): { program: Node } | undefined {
  try {
    return parse(source, { sourceType: 'module', plugins: ['typescript'], errorRecovery: true }) as unknown as { program: Node }
  } catch {
    return undefined
  }
}

/** What the module's top level declares (variables, functions, classes, interfaces, types, enums), imports aside. */
function declaredNames(program: Node): string[] {
  const names: string[] = []
  for (const statement of statements(program)) {
    const declaration = statement.type === 'ExportNamedDeclaration' || statement.type === 'ExportDefaultDeclaration' ? (statement.declaration as Node | null) : statement
    if (declaration === null || declaration.type === 'ImportDeclaration') continue
    if (declaration.type === 'VariableDeclaration') {
      for (const declarator of declaration.declarations as Node[]) {
        const id = declarator.id as Node
        if (id.type === 'Identifier') names.push(id.name as string)
      }
    } else if ((declaration.id as Node | null | undefined)?.type === 'Identifier') {
      names.push((declaration.id as Node).name as string)
    }
  }
  return names
}
