/**
 * Registers an observer in its model's file: `Product.observe(productObserver)`
 * after the model's definition (the observer imports only the model's type,
 * so the two files do not import each other's values).
 */
import type { EditOutcome } from '../write-plan.ts'
import { applyInsertions, importedAs, importInsertion, isCallOf, parseModule, statements, type Node } from './source.ts'

export function observeModel(source: string | undefined, model: string, observer: { specifier: string; name: string }): EditOutcome {
  const registration = `${model}.observe(${observer.name})`
  const lines = [`import { ${observer.name} } from '${observer.specifier}'`, registration]
  const manual = (reason: string): EditOutcome => ({ status: 'manual', reason, lines })
  if (source === undefined) return manual(`there is no model file (svc make:model ${model})`)
  const parsed = parseModule(source)
  if ('error' in parsed) return manual(`the model's file: ${parsed.error}`)
  const defined = statements(parsed.program).some((statement) => {
    const declaration = statement.type === 'ExportNamedDeclaration' ? (statement.declaration as Node | null) : undefined
    return declaration?.type === 'VariableDeclaration' && (declaration.declarations as Node[]).some((each) => (each.id as Node).name === model && isCallOf(each.init as Node, 'defineModel'))
  })
  if (!defined) return manual(`the model's file has no \`export const ${model} = defineModel(...)\``)
  const imported = importedAs(parsed.program, observer.specifier, observer.name)
  const observes = statements(parsed.program).some((statement) => {
    const expression = statement.type === 'ExpressionStatement' ? (statement.expression as Node) : undefined
    if (!isCallOf(expression, 'observe')) return false
    const callee = expression.callee as Node
    const argument = (expression.arguments as Node[])[0]
    return (callee.object as Node).name === model && argument?.type === 'Identifier' && argument.name === (imported ?? observer.name)
  })
  if (observes) return { status: 'unchanged' }
  const insertions = [{ at: source.length, text: `${source.endsWith('\n') ? '' : '\n'}\n${registration}\n` }]
  const importLine = importInsertion(source, parsed.program, imported === undefined ? [lines[0]!] : [])
  if (importLine !== undefined) insertions.push(importLine)
  return { status: 'changed', contents: applyInsertions(source, insertions) }
}
