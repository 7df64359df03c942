/**
 * `make:crud <Name>`: a resource that works end to end: model, migration,
 * request schemas (declared on the routes), resource, controller (through a
 * service and a repository, or the model directly with `simple`), routes
 * registered in routes/api.ts (with `auth` unless `public`), tests, and with
 * `seed` a factory and a seeder. With `owned`, each row belongs to the user who
 * created it (a `user_id` from the token): others are told it does not exist. Callable as a function (`svc start` adds an
 * example resource with it).
 *
 * @example
 * const result = await makeCrud(findProject(dir), 'Product', { seed: true })
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { MakeJson } from '../contract/index.ts'
import { CliError } from '../output/cli-error.ts'
import type { Project } from '../project/project.ts'
import { registerResourceRoutes, routesPlacement, type ResourceRoutes } from './codemods/routes.ts'
import { DEFAULT_CRUD_FIELDS, fieldSpec, parseFields, type Field } from './fields.ts'
import { Generator, singular } from './generator.ts'
import { deriveNames, type Names } from './names.ts'
import { createdTables } from './migration-tables.ts'
import { appPaths, identifiers, importPath } from './paths.ts'
import { writePlan, type Plan } from './write-plan.ts'

export interface CrudOptions {
  /** `name:string,price:number,description:text?` (default `name:string,description:text?`). */
  fields?: string
  /** Without the service and repository layers. */
  simple?: boolean
  /** A factory and a seeder with sample rows. */
  seed?: boolean
  /** Without the `auth` middleware. */
  public?: boolean
  /**
   * Each row belongs to the signed-in user who creates it (`user_id`, from the token, never from the body): only they,
   * or an admin, list, show, change and delete it; anyone else gets 404, as for a row that does not exist.
   */
  owned?: boolean
  /** Overwrite files that exist. */
  force?: boolean
  /** When the migration is dated (tests). */
  now?: Date
}

export async function makeCrud(project: Project, input: string, options: CrudOptions = {}): Promise<MakeJson> {
  const plan = await planCrud(new Generator(project, options.now), input, options)
  return await writePlan(project, plan, options.force === true)
}

export async function planCrud(generator: Generator, input: string, options: CrudOptions): Promise<Plan> {
  const names = singular(deriveNames(input))
  const fields = parseFields(options.fields ?? DEFAULT_CRUD_FIELDS)
  if (fields.length === 0) throw new CliError('E_BAD_FIELDS', 'make:crud needs at least one field', { hint: `--fields=${DEFAULT_CRUD_FIELDS}` })
  const routesFile = join(generator.project.appDir, appPaths.apiRoutes)
  const routesSource = existsSync(routesFile) ? readFileSync(routesFile, 'utf8') : undefined
  const auth = options.public !== true
  const owned = options.owned === true
  const hasUsers = createdTables(join(generator.project.appDir, appPaths.migrations)).has('users')
  if (owned) refuseOwnedConflicts(fields, auth, hasUsers)
  // The owner is a column of the table, the model and the answers, but not of the request: it comes from the token.
  const stored = owned ? [...fields, OWNER] : fields
  const layered = options.simple !== true
  const { prefix } = routesPlacement(routesSource)
  const render = generator.render.bind(generator)

  const files = [
    await render('model', names, { fields: stored }),
    await generator.createTable(names, stored),
    await render('request', names, { fields, list: true }),
    await render('resource', names, { fields: stored, model: true }),
    await render('controller', names, { resource: true, layered, fields, owned }),
    ...(layered ? [await render('service', names, { repository: true }), await render('repository', names, { fields: stored })] : []),
    ...(options.seed === true ? [await render('factory', names, { fields: stored }), await render('seeder', names, { factory: true, count: 10 })] : []),
    // The test stores a parent of each references field through its factory (and the factory above imports it;
    // the owner's, svc's userFactory, only the factory: the test's users come from t.tokenFor).
    ...(await generator.parentFactories(names, options.seed === true ? stored : fields)),
    await render('test', names, { resource: { fields, basePath: `${prefix === '/' ? '' : prefix}${names.routePath}`, auth, owned } }),
  ]
  const routes = resourceRoutes(names, auth)
  // Without make:auth there are no users to sign in: every request, and the test's tokenFor, would fail.
  const needsUsers = auth && !hasUsers
  return {
    files,
    next: [
      ...(needsUsers ? ['svc make:auth (the routes take a signed-in user; or make:crud --public)'] : []),
      'svc migrate',
      ...(options.seed === true ? ['svc db:seed'] : []),
      'npm test',
    ],
    whole: `make:crud ${names.input}`,
    wholeHint: options.fields === undefined ? otherFields(generator, names, fields) : undefined,
    edits: [{ path: appPaths.apiRoutes, what: `the ${names.plural.words} routes`, apply: (source) => registerResourceRoutes(source, routes) }],
  }
}

/** The owner's column of an `owned` resource: a foreign key to make:auth's users. */
const OWNER: Field = { name: 'user_id', type: 'references', optional: false, table: 'users' }

/** `--owned` takes the owner from the token: the routes need one, and `user_id` is its column, not the client's. */
function refuseOwnedConflicts(fields: readonly Field[], auth: boolean, hasUsers: boolean): void {
  if (!auth) {
    throw new CliError('E_BAD_OPTION', '--owned and --public do not go together: the owner of a row is the signed-in user', {
      hint: 'leave out --public (the routes then need a token), or --owned (every row is everyone\'s)',
    })
  }
  if (!hasUsers) {
    throw new CliError('E_BAD_OPTION', '--owned needs the users of make:auth: no migration of the app creates the users table', { hint: 'svc make:auth first' })
  }
  if (fields.some((field) => field.name === OWNER.name)) {
    throw new CliError('E_BAD_FIELDS', `--owned adds the ${OWNER.name} column itself, from the token: leave it out of --fields`, {
      hint: `--fields=${fields.filter((field) => field.name !== OWNER.name).map(fieldSpec).join(',') || DEFAULT_CRUD_FIELDS}`,
    })
  }
}

/**
 * Run again without `--fields`, make:crud renders its default fields: when the model the app has names other
 * columns, the files differ for that reason, and `--force` would replace the resource's columns with the default's.
 */
function otherFields(generator: Generator, names: Names, fields: readonly Field[]): string | undefined {
  const existing = generator.fieldsOf(names, undefined)
  const columns = (list: readonly Field[]) => list.map((field) => field.name).join(', ')
  if (existing.length === 0 || columns(existing) === columns(fields)) return undefined
  return `${appPaths.model(names)} has the columns ${columns(existing)}, not the default ${columns(fields)}: run it with the --fields it was made with`
}

/** The five routes of a resource, declaring their schemas (validation, API description). */
export function resourceRoutes(names: Names, auth: boolean): ResourceRoutes {
  const id = identifiers(names)
  const from = appPaths.apiRoutes
  const path = names.routePath
  const guard = auth ? ".middleware('auth')" : ''
  return {
    path,
    controller: { specifier: importPath(from, appPaths.controller(names)), alias: id.controllerAlias },
    imports: [
      { specifier: importPath(from, appPaths.request(names)), names: [id.listQuery, id.request] },
      { specifier: importPath(from, appPaths.resource(names)), names: [id.resourceCollection, id.resourceSchema] },
    ],
    lines: (r, controller) => [
      `// ${names.plural.words}: list, show, create, update, delete (svc make:crud ${names.input})`,
      `${r}.get('${path}', ${controller}.${id.handlers.list}).query(${id.listQuery}).response(${id.resourceCollection})${guard}`,
      `${r}.get('${path}/{id}', ${controller}.${id.handlers.show}).where('id', /\\d+/).response(${id.resourceSchema})${guard}`,
      `${r}.post('${path}', ${controller}.${id.handlers.create}).body(${id.request}).response(${id.resourceSchema}, { status: 201 })${guard}`,
      `${r}.put('${path}/{id}', ${controller}.${id.handlers.update}).where('id', /\\d+/).body(${id.request}).response(${id.resourceSchema})${guard}`,
      `${r}.delete('${path}/{id}', ${controller}.${id.handlers.delete}).where('id', /\\d+/).response(null, { status: 204 })${guard}`,
    ],
  }
}
