import { appPaths, identifiers, importPath } from '../paths.ts'
import { defineTemplate } from '../template.ts'

export type ObserverOptions = Record<string, never>

declare module '../template.ts' {
  interface TemplateOptions {
    observer: ObserverOptions
  }
}

/**
 * `app/observers/<name>-observer.ts`: told of every create, update and
 * delete of the model, which registers it (`Product.observe(productObserver)`
 * at the end of the model's file, added by make:observer).
 */
export default defineTemplate('observer', ({ names }) => {
  const id = identifiers(names)
  const path = appPaths.observer(names)
  const one = names.singular.camel
  return {
    path,
    contents: `/**
 * Told of every ${names.singular.words} created, updated or deleted through the model (after the write,
 * awaited, with the same database handle: inside a transaction, it is part of it).
 * It imports the model's type only: the model imports this file to register it.
 */
import type { ModelObserver } from 'svc'
import type { ${id.model} } from '${importPath(path, appPaths.model(names))}'

export const ${id.observer}: ModelObserver<${id.model}> = {
  async created(${one}, db) {
    // e.g. await db.execute('insert into audit_log (action, row_id) values (?, ?)', ['created', ${one}.id])
  },
  async updated(${one}, db) {},
  async deleted(${one}, db) {},
}
`,
  }
})
