/**
 * Where each kind of file goes in an app, and what it declares: one place,
 * so that a template importing another kind's file (a controller its model)
 * names it the way that kind's template wrote it.
 */
import { posix } from 'node:path'
import { nestedPath, type Names } from './names.ts'

export const appPaths = {
  model: (n: Names) => `app/models/${nestedPath(n, n.singular.kebab)}.ts`,
  controller: (n: Names) => `app/controllers/${nestedPath(n, n.plural.kebab)}.ts`,
  service: (n: Names) => `app/services/${nestedPath(n, `${n.singular.kebab}-service`)}.ts`,
  repository: (n: Names) => `app/repositories/${nestedPath(n, `${n.singular.kebab}-repository`)}.ts`,
  resource: (n: Names) => `app/resources/${nestedPath(n, `${n.singular.kebab}-resource`)}.ts`,
  request: (n: Names) => `app/requests/${nestedPath(n, `${n.base.kebab}-request`)}.ts`,
  middleware: (n: Names) => `app/middleware/${nestedPath(n, n.base.kebab)}.ts`,
  observer: (n: Names) => `app/observers/${nestedPath(n, `${n.singular.kebab}-observer`)}.ts`,
  rule: (n: Names) => `app/rules/${nestedPath(n, n.base.kebab)}.ts`,
  event: (n: Names) => `app/events/${nestedPath(n, n.base.kebab)}.ts`,
  listener: (n: Names) => `app/listeners/${nestedPath(n, n.base.kebab)}.ts`,
  listenerIndex: 'app/listeners/index.ts',
  job: (n: Names) => `app/jobs/${nestedPath(n, n.base.kebab)}.ts`,
  mail: (n: Names) => `app/mail/${nestedPath(n, n.base.kebab)}.ts`,
  test: (n: Names) => `tests/${nestedPath(n, n.base.kebab)}.test.ts`,
  resourceTest: (n: Names) => `tests/${nestedPath(n, n.plural.kebab)}.test.ts`,
  factory: (n: Names) => `database/factories/${nestedPath(n, `${n.singular.kebab}-factory`)}.ts`,
  // Flat: db:seed runs the files of database/seeders itself, not of its subfolders.
  seeder: (n: Names) => `database/seeders/${[...n.folders, n.plural.kebab].join('-')}.ts`,
  migrations: 'database/migrations',
  lang: (locale: string, file: string) => `lang/${locale}/${file}.ts`,
  langIndex: 'lang/index.ts',
  kernel: 'app/kernel.ts',
  apiRoutes: 'routes/api.ts',
} as const

/** The identifiers the generated files declare. */
export function identifiers(n: Names) {
  const nested = [...n.folders.flatMap((folder) => folder.split('-')), ...n.plural.kebab.split('-')]
  const controllerAlias = nested.map((word, i) => (i === 0 ? word : word.charAt(0).toUpperCase() + word.slice(1))).join('')
  return {
    model: n.singular.pascal,
    attributes: `${n.singular.pascal}Attributes`,
    request: `${n.base.pascal}Request`,
    listQuery: `${n.base.pascal}ListQuery`,
    resourceSchema: `${n.singular.pascal}Resource`,
    resourceCollection: `${n.singular.pascal}Collection`,
    resourceFunction: `${n.singular.camel}Resource`,
    service: `${n.singular.pascal}Service`,
    repository: `${n.singular.pascal}Repository`,
    listOptions: `${n.singular.pascal}ListOptions`,
    observer: `${n.singular.camel}Observer`,
    factory: `${n.singular.camel}Factory`,
    /** The controller module's name in routes/api.ts (`import * as products`). */
    controllerAlias,
    handlers: {
      list: `list${n.plural.pascal}`,
      show: `show${n.singular.pascal}`,
      create: `create${n.singular.pascal}`,
      update: `update${n.singular.pascal}`,
      delete: `delete${n.singular.pascal}`,
    },
  }
}

/** The import specifier of `to` in the file `from` (both relative to the app folder): `../models/product.ts`. */
export function importPath(from: string, to: string): string {
  const path = posix.relative(posix.dirname(from), to)
  return path.startsWith('.') ? path : `./${path}`
}
