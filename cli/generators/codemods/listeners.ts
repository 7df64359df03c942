/**
 * Adds a listener to `app/listeners/index.ts`, the list svc registers when
 * it loads the app: `export default [a, b] satisfies Listener[]`.
 */
import type { EditOutcome } from '../write-plan.ts'
import { appendToList, applyInsertions, defaultExport, freeName, importedAs, importInsertion, parseModule, topLevelNames, unwrap, type Node } from './source.ts'

export function addListener(source: string | undefined, listener: { specifier: string; alias: string }): EditOutcome {
  if (source === undefined) {
    return {
      status: 'changed',
      contents: `/** The app's event listeners: svc registers them when it loads the app. \`svc make:listener\` adds each new one. */
import type { Listener } from 'svc'
import ${listener.alias} from '${listener.specifier}'

export default [${listener.alias}] satisfies Listener[]
`,
    }
  }
  const manual = (reason: string): EditOutcome => ({
    status: 'manual',
    reason,
    lines: [`import ${listener.alias} from '${listener.specifier}'`, `// and ${listener.alias} in the exported list`],
  })
  const parsed = parseModule(source)
  if ('error' in parsed) return manual(`app/listeners/index.ts: ${parsed.error}`)
  const list = unwrap(defaultExport(parsed.program))
  if (list?.type !== 'ArrayExpression') return manual('app/listeners/index.ts does not `export default [...]`')
  const elements = (list.elements as Array<Node | null>).filter((element): element is Node => element !== null)
  const imported = importedAs(parsed.program, listener.specifier, 'default')
  if (imported !== undefined && elements.some((element) => element.type === 'Identifier' && element.name === imported)) return { status: 'unchanged' }
  const alias = imported ?? freeName(topLevelNames(parsed.program), listener.alias, 'Listener')
  const insertions = [appendToList(source, list, elements, alias)]
  const importLine = importInsertion(source, parsed.program, imported === undefined ? [`import ${alias} from '${listener.specifier}'`] : [])
  if (importLine !== undefined) insertions.push(importLine)
  return { status: 'changed', contents: applyInsertions(source, insertions) }
}
