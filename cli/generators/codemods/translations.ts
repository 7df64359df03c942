/**
 * Wires lang files: `lang/index.ts` gets each file (`createTranslator({
 * locales: { fr: { validation: frValidation } } })`), and `app/kernel.ts`
 * words validation errors through it (`validationMessage: lang.validationMessage`).
 */
import type { EditOutcome } from '../write-plan.ts'
import {
  appendToList,
  applyInsertions,
  defaultExport,
  freeName,
  importedAs,
  importInsertion,
  isCallOf,
  parseModule,
  property,
  statements,
  topLevelNames,
  type Insertion,
  type Node,
} from './source.ts'

const FALLBACK = 'en'

function key(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? name : `'${name}'`
}

/** Adds `locale`'s `file` (imported from `specifier` as `alias`) to lang/index.ts. */
export function addLangFile(source: string | undefined, entry: { locale: string; file: string; specifier: string; alias: string }): EditOutcome {
  if (source === undefined) {
    return {
      status: 'changed',
      contents: `/**
 * The app's translations (docs/translations.md): \`lang.for(c)\` is \`t(key, params)\` in the request's language
 * (Accept-Language), else the fallback's. \`svc make:lang <locale> <file>\` adds each new file here.
 */
import { createTranslator } from 'svc'
import ${entry.alias} from '${entry.specifier}'

export const lang = createTranslator({
  fallback: '${FALLBACK}',
  locales: {
    ${key(entry.locale)}: { ${key(entry.file)}: ${entry.alias} },
  },
})
`,
    }
  }
  const manual = (reason: string): EditOutcome => ({
    status: 'manual',
    reason,
    lines: [`import ${entry.alias} from '${entry.specifier}'`, `// in createTranslator({ locales: { ${key(entry.locale)}: { ${key(entry.file)}: ${entry.alias} } } })`],
  })
  const parsed = parseModule(source)
  if ('error' in parsed) return manual(`lang/index.ts: ${parsed.error}`)
  const { program } = parsed
  let options: Node | undefined
  for (const statement of statements(program)) {
    const declaration = statement.type === 'ExportNamedDeclaration' ? (statement.declaration as Node | null) : statement
    if (declaration?.type !== 'VariableDeclaration') continue
    for (const declarator of declaration.declarations as Node[]) {
      const init = declarator.init as Node | undefined
      if (isCallOf(init, 'createTranslator')) options = (init.arguments as Node[])[0]
    }
  }
  const locales = options?.type === 'ObjectExpression' ? (property(options, 'locales')?.value as Node | undefined) : undefined
  if (locales?.type !== 'ObjectExpression') return manual('lang/index.ts has no `createTranslator({ locales: { ... } })`')
  const imported = importedAs(program, entry.specifier, 'default')
  const alias = imported ?? freeName(topLevelNames(program), entry.alias, 'Messages')
  const localeNode = property(locales, entry.locale)?.value as Node | undefined
  const insertions: Insertion[] = []
  if (localeNode === undefined) {
    insertions.push(appendToList(source, locales, locales.properties as Node[], `${key(entry.locale)}: { ${key(entry.file)}: ${alias} }`))
  } else if (localeNode.type !== 'ObjectExpression') {
    return manual(`lang/index.ts: the ${entry.locale} locale is not an object literal`)
  } else if (property(localeNode, entry.file) !== undefined) {
    if (imported !== undefined) return { status: 'unchanged' }
    return manual(`lang/index.ts already has ${entry.locale}.${entry.file} from another file`)
  } else {
    insertions.push(appendToList(source, localeNode, localeNode.properties as Node[], `${key(entry.file)}: ${alias}`))
  }
  const importLine = importInsertion(source, program, imported === undefined ? [`import ${alias} from '${entry.specifier}'`] : [])
  if (importLine !== undefined) insertions.push(importLine)
  return { status: 'changed', contents: applyInsertions(source, insertions) }
}

/** Makes app/kernel.ts word validation errors with the translations. */
export function useTranslatedValidation(source: string | undefined, langSpecifier: string): EditOutcome {
  const option = 'validationMessage: lang.validationMessage'
  if (source === undefined) {
    return {
      status: 'changed',
      contents: `/** What the app runs around its routes: global middleware, aliases, health checks, error and message hooks. */
import { defineKernel } from 'svc'
import { lang } from '${langSpecifier}'

export default defineKernel({
  ${option},
})
`,
    }
  }
  const manual = (reason: string): EditOutcome => ({ status: 'manual', reason, lines: [`import { lang } from '${langSpecifier}'`, `// in defineKernel({ ... }): ${option},`] })
  const parsed = parseModule(source)
  if ('error' in parsed) return manual(`app/kernel.ts: ${parsed.error}`)
  const exported = defaultExport(parsed.program)
  const options = isCallOf(exported, 'defineKernel') ? (exported.arguments as Node[])[0] : exported
  if (options?.type !== 'ObjectExpression') return manual('app/kernel.ts does not `export default defineKernel({ ... })`')
  const imported = importedAs(parsed.program, langSpecifier, 'lang')
  const existing = property(options, 'validationMessage')
  if (existing !== undefined) {
    const value = source.slice((existing.value as Node).start, (existing.value as Node).end)
    if (imported !== undefined && value === 'lang.validationMessage') return { status: 'unchanged' }
    return manual(`app/kernel.ts already sets validationMessage (${value})`)
  }
  if (imported === undefined && topLevelNames(parsed.program).has('lang')) return manual('app/kernel.ts already declares another `lang`')
  const insertions = [appendToList(source, options, options.properties as Node[], option)]
  const importLine = importInsertion(source, parsed.program, imported === undefined ? [`import { lang } from '${langSpecifier}'`] : [])
  if (importLine !== undefined) insertions.push(importLine)
  return { status: 'changed', contents: applyInsertions(source, insertions) }
}
