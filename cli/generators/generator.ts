/**
 * What each `make:*` command plans: the files of its kind (rendered by the
 * app's stub or the built-in template), the files they need that the app
 * lacks (a repository's model), and the edits that wire them in (a listener
 * into app/listeners/index.ts). `writePlan` then checks and writes it all.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { frameworkTableCommand } from '../project/framework-tables.ts'
import type { Project } from '../project/project.ts'
import { checkBindings } from './bindings.ts'
import { addListener } from './codemods/listeners.ts'
import { modelFields } from './codemods/model-fields.ts'
import { observeModel } from './codemods/model-observer.ts'
import { addLangFile, useTranslatedValidation } from './codemods/translations.ts'
import { fieldSpec, parentOf, parseFields, type Field } from './fields.ts'
import { casesOf, deriveNames, singularOfTable, splitWords, type Names } from './names.ts'
import { migrationTimestamp } from './migration-timestamp.ts'
import { checkAlteredTable, createdTables } from './migration-tables.ts'
import { appPaths, identifiers, importPath } from './paths.ts'
import type { GeneratedFile, TemplateKind, TemplateOptions } from './template.ts'
import { templateFor } from './templates.ts'
import type { Plan } from './write-plan.ts'
import { CliError } from '../output/cli-error.ts'

export class Generator {
  /** `20260115103000`: the prefix of migration files written now. */
  readonly timestamp: string

  constructor(
    readonly project: Project,
    now: Date = new Date(),
  ) {
    this.timestamp = migrationTimestamp(join(project.appDir, appPaths.migrations), now)
  }

  /** Renders one file of `kind` with the app's stub, if it has one. */
  async render<K extends TemplateKind>(kind: K, names: Names, options: TemplateOptions[K]): Promise<GeneratedFile> {
    const file = (await templateFor(this.project.appDir, kind))({ kind, names, options })
    checkBindings(file, names)
    return file
  }

  /** Whether the app has this file (relative to the app folder). */
  has(path: string): boolean {
    return existsSync(join(this.project.appDir, path))
  }

  async model(input: string, options: { fields?: string; migration?: boolean }): Promise<Plan> {
    const names = deriveNames(input)
    const fields = parseFields(options.fields)
    const files = [await this.render('model', names, { fields })]
    if (options.migration === true) return { files: [...files, await this.createTable(names, fields)] }
    const steps = this.missingTableSteps(names, fields)
    return steps.length === 0 ? { files } : { files, next: steps }
  }

  /** Without its table a model fails at its first query, and "svc migrate" alone would create nothing: the migration to write first. */
  missingTableSteps(names: Names, fields: readonly Field[]): string[] {
    if (createdTables(join(this.project.appDir, appPaths.migrations)).has(names.table)) return []
    const columns = fields.length === 0 ? '' : ` --fields=${fields.map(fieldSpec).join(',')}`
    return [`svc make:migration create_${names.table}_table${columns} (no migration creates ${names.table})`, 'svc migrate']
  }

  async migration(input: string, options: { fields?: string }): Promise<Plan> {
    const migration = migrationName(input)
    const fields = parseFields(options.fields)
    const create = /^create_(\w+?)_table$/.exec(migration)
    const alter = /^\w+_(?:to|from|in)_(\w+?)_table$/.exec(migration)
    const table = create?.[1] ?? alter?.[1]
    const action = create ? 'create' : alter ? 'alter' : 'blank'
    if (alter?.[1] !== undefined) checkAlteredTable(join(this.project.appDir, appPaths.migrations), migration, alter[1])
    if (table !== undefined && action === 'create') refuseFrameworkTable(table)
    if (table !== undefined && action !== 'blank') this.checkParentTables(deriveNames(table), fields)
    return { files: [await this.render('migration', deriveNames(table ?? migration), { migration, timestamp: this.timestamp, action, table, fields })] }
  }

  async controller(input: string, options: { resource?: boolean; fields?: string }): Promise<Plan> {
    // The singular as the base, as make:crud: `make:controller Products --resource` imports ProductRequest from product-request.ts.
    const names = singular(deriveNames(input, 'Controller'))
    if (options.resource !== true) return { files: [await this.render('controller', names, { resource: false, layered: false, fields: [] })] }
    const fields = this.fieldsOf(names, options.fields)
    return {
      files: [
        await this.render('controller', names, { resource: true, layered: false, fields }),
        await this.render('request', names, { fields, list: true }),
        await this.render('resource', names, { fields, model: true }),
        ...(await this.missingModel(names, fields)),
      ],
      next: [...this.missingTableSteps(names, fields), 'attach the handlers in routes/api.ts'],
    }
  }

  async service(input: string): Promise<Plan> {
    const names = deriveNames(input, 'Service')
    return { files: [await this.render('service', names, { repository: this.has(appPaths.repository(names)) })] }
  }

  async repository(input: string, options: { fields?: string }): Promise<Plan> {
    const names = deriveNames(input, 'Repository')
    const fields = this.fieldsOf(names, options.fields)
    const steps = this.missingTableSteps(names, fields)
    const files = [await this.render('repository', names, { fields }), ...(await this.missingModel(names, fields))]
    return steps.length === 0 ? { files } : { files, next: steps }
  }

  async resource(input: string, options: { fields?: string }): Promise<Plan> {
    const names = deriveNames(input, 'Resource')
    return { files: [await this.render('resource', names, { fields: this.fieldsOf(names, options.fields), model: this.has(appPaths.model(names)) })] }
  }

  // The next steps name what the file exports (the built-in templates' names), as make:seeder's names the seeder.
  async request(input: string, options: { fields?: string }): Promise<Plan> {
    const names = deriveNames(input, 'Request')
    return {
      files: [await this.render('request', names, { fields: parseFields(options.fields), list: false })],
      next: [`declare it on its route: .body(${identifiers(names).request})`],
    }
  }

  async middleware(input: string): Promise<Plan> {
    const names = deriveNames(input, 'Middleware')
    return { files: [await this.render('middleware', names, {})], next: [`attach it: .middleware(${names.base.camel}()) on a route or group, or app/kernel.ts`] }
  }

  async rule(input: string): Promise<Plan> {
    const names = deriveNames(input, 'Rule')
    return { files: [await this.render('rule', names, {})], next: [`use it in a schema: v.pipe(v.string(), ${names.base.camel}())`] }
  }

  async event(input: string): Promise<Plan> {
    return { files: [await this.render('event', deriveNames(input), {})] }
  }

  async observer(input: string): Promise<Plan> {
    const names = deriveNames(input, 'Observer')
    const id = identifiers(names)
    const modelPath = appPaths.model(names)
    const observerPath = appPaths.observer(names)
    // Registered by an edit of the model's file: without a model there is nothing to observe (an empty model would not migrate).
    if (!this.has(modelPath)) {
      throw new CliError('E_NO_MODEL', `make:observer ${input}: the app has no model ${id.model} (${modelPath})`, {
        hint: `create it first (svc make:model ${names.input} --fields=... --migration, or svc make:crud ${names.input}), or name a model the app has`,
      })
    }
    return {
      files: [await this.render('observer', names, {})],
      edits: [
        {
          path: modelPath,
          what: `${id.model}.observe(${id.observer})`,
          apply: (source) => observeModel(source, id.model, { specifier: importPath(modelPath, observerPath), name: id.observer }),
        },
      ],
    }
  }

  async listener(input: string, options: { event: string | undefined; queued?: boolean }): Promise<Plan> {
    if (options.event === undefined || options.event.trim() === '') {
      throw new CliError('E_BAD_ARGUMENTS', 'make:listener needs the event it listens to', { hint: `svc make:listener ${input} --event=OrderShipped` })
    }
    const names = deriveNames(input, 'Listener')
    const event = deriveNames(options.event)
    const files = [await this.render('listener', names, { event, queued: options.queued === true })]
    if (!this.has(appPaths.event(event))) files.push(await this.render('event', event, {}))
    const listenerPath = appPaths.listener(names)
    // A listener of another event under that name: keeping it and writing the new event would be half of what was asked.
    const heard = this.has(listenerPath) ? listenedEvent(readFileSync(join(this.project.appDir, listenerPath), 'utf8')) : undefined
    const otherEvent = heard !== undefined && heard !== event.base.pascal
    // Queued through the database driver (the default), emit() needs the jobs table: without it the request fails.
    const queueTables = options.queued === true && !createdTables(join(this.project.appDir, appPaths.migrations)).has('jobs')
    return {
      files,
      ...(options.queued === true
        ? {
            next: [
              ...(queueTables ? ['svc make:queue-table, then svc migrate (a queued listener goes through the jobs table)'] : []),
              'svc queue:work runs it (QUEUE_CONNECTION=sync and the tests run it at once)',
            ],
          }
        : {}),
      ...(otherEvent
        ? {
            whole: `make:listener ${names.input} --event=${options.event}`,
            wholeRefusal: {
              reason: `would keep ${listenerPath}, which listens to ${heard}, not ${event.base.pascal}`,
              fix: `for a second listener, pick another name (svc make:listener ${[...names.folders, `${names.base.pascal}On${event.base.pascal}`].join('/')} --event=${options.event}); to make this one listen to ${event.base.pascal} instead, add --force (its handle is rewritten)`,
            },
          }
        : {}),
      edits: [
        {
          path: appPaths.listenerIndex,
          what: `the ${names.base.words} listener`,
          apply: (source) => addListener(source, { specifier: importPath(appPaths.listenerIndex, listenerPath), alias: names.base.camel }),
        },
      ],
    }
  }

  async job(input: string): Promise<Plan> {
    const names = deriveNames(input, 'Job')
    return { files: [await this.render('job', names, {})], next: [`await c.queue.dispatch(${names.base.camel}, payload), then svc queue:work`] }
  }

  async mail(input: string): Promise<Plan> {
    const names = deriveNames(input, 'Mail')
    return { files: [await this.render('mail', names, {})], next: [`await c.mailer.send(${names.base.camel}Mail.to(address, data))`] }
  }

  async test(input: string): Promise<Plan> {
    // `tests/checkout` and `checkout.test.ts` name the file as people point at it: the folder and the suffix are the generator's.
    const name = input.trim().replace(/^(\.\/)?tests[\\/]+/, '').replace(/\.test(\.ts)?$/, '')
    return { files: [await this.render('test', deriveNames(name, 'Test'), {})] }
  }

  async factory(input: string, options: { fields?: string }): Promise<Plan> {
    const names = deriveNames(input, 'Factory')
    // make:auth's users are stored as registration stores them (the password hashed): a factory read from a model could not.
    if (options.fields === undefined && this.isAuthUsers(names)) return { files: [await this.render('factory', names, { fields: [], authUsers: true })] }
    const fields = this.fieldsOf(names, options.fields)
    const files = [await this.render('factory', names, { fields }), ...(await this.parentFactories(names, fields)), ...(await this.missingModel(names, fields))]
    // Rows need their table: without a migration creating it, the seeder's db:seed would fail (no such table), as make:model says.
    const steps = this.missingTableSteps(names, fields)
    return steps.length === 0 ? { files } : { files, next: [...steps, `svc make:seeder ${input}`] }
  }

  /**
   * The factories of the parents `references` fields name that the app lacks (a task's factory imports the
   * project's, whose rows give project_id), from each parent's model, and theirs in turn; make:auth's users get
   * svc's userFactory (users who can log in). Another parent without a model is refused: there is nothing to make
   * its rows from.
   */
  async parentFactories(names: Names, fields: readonly Field[], planned = new Set([appPaths.factory(names)])): Promise<GeneratedFile[]> {
    const files: GeneratedFile[] = []
    refuseSelfReference(names, fields)
    for (const field of fields.filter((each) => each.type === 'references')) {
      const parent = parentOf(field)
      const path = appPaths.factory(parent)
      if (planned.has(path) || this.has(path)) continue
      if (this.isAuthUsers(parent)) {
        planned.add(path)
        files.push(await this.render('factory', parent, { fields: [], authUsers: true }))
        continue
      }
      if (!this.has(appPaths.model(parent))) {
        // A table the app's migrations make without a model (the example's posts): the model is what is missing, not the table.
        const tableExists = createdTables(join(this.project.appDir, appPaths.migrations)).has(parent.table)
        throw new CliError('E_NO_MODEL', `${field.name}:references needs the ${parent.singular.pascal} model (${appPaths.model(parent)}) for the rows its factory stores`, {
          hint: tableExists
            ? `the app's migrations create ${parent.table}: write its model first, naming the columns a new row needs (svc make:model ${parent.singular.pascal} --fields=..., without --migration)`
            : `svc make:crud ${parent.singular.pascal} first (or svc make:model ${parent.singular.pascal} --fields=... --migration)`,
        })
      }
      planned.add(path)
      const parentFields = this.fieldsOf(parent, undefined)
      files.push(await this.render('factory', parent, { fields: parentFields }), ...(await this.parentFactories(parent, parentFields, planned)))
    }
    return files
  }

  /** Refuses (`E_BAD_FIELDS`) a foreign key to a table no migration of the app creates: `svc migrate` would create it, and every insert fail. */
  checkParentTables(names: Names, fields: readonly Field[]): void {
    refuseSelfReference(names, fields)
    const tables = createdTables(join(this.project.appDir, appPaths.migrations))
    for (const field of fields.filter((each) => each.type === 'references')) {
      const parent = parentOf(field)
      if (parent.table === names.table || tables.has(parent.table)) continue
      throw new CliError('E_BAD_FIELDS', `--fields: ${field.name} references ${parent.table}, which no migration of the app creates`, {
        hint: missingParentHint(field, parent, tables),
      })
    }
  }

  /** make:auth's users, whose rows svc's userFactory stores (the app's migrations create the table; it has no factory of its own). */
  isAuthUsers(names: Names): boolean {
    return names.table === AUTH_USERS_TABLE && createdTables(join(this.project.appDir, appPaths.migrations)).has(AUTH_USERS_TABLE)
  }

  async seeder(input: string, options: { count: number }): Promise<Plan> {
    const names = deriveNames(input, 'Seeder')
    // make:auth's users have a factory without a model (svc's userFactory): written with the seeder when the app lacks it.
    const usersFactory = !this.has(appPaths.factory(names)) && this.isAuthUsers(names) ? [await this.render('factory', names, { fields: [], authUsers: true })] : []
    return { files: [await this.render('seeder', names, { factory: usersFactory.length > 0 || this.has(appPaths.factory(names)), count: options.count }), ...usersFactory] }
  }

  async lang(locale: string, file: string): Promise<Plan> {
    if (!/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(locale)) {
      throw new CliError('E_BAD_NAME', `"${locale}" is not a locale`, { hint: 'a language tag: fr, pt-BR, zh-Hant' })
    }
    if (!/^[a-z][a-z0-9_-]*$/.test(file)) throw new CliError('E_BAD_NAME', `"${file}" is not a lang file name`, { hint: 'lower case: validation, messages' })
    const path = appPaths.lang(locale, file)
    const alias = casesOf([...splitWords(locale), ...splitWords(file)]).camel
    const names = deriveNames(file)
    return {
      files: [await this.render('lang', names, { locale, file })],
      edits: [
        {
          path: appPaths.langIndex,
          what: `${locale}/${file} in the translations`,
          apply: (source) => addLangFile(source, { locale, file, specifier: importPath(appPaths.langIndex, path), alias }),
        },
        {
          path: appPaths.kernel,
          what: 'validation messages through the translations',
          apply: (source) => useTranslatedValidation(source, importPath(appPaths.kernel, appPaths.langIndex)),
        },
      ],
    }
  }

  /** `--fields` as given, else the fields of the model the app has (none when it has no model of that name). */
  fieldsOf(names: Names, spec: string | undefined): Field[] {
    if (spec !== undefined) return parseFields(spec)
    const path = join(this.project.appDir, appPaths.model(names))
    if (!existsSync(path)) return []
    return modelFields(readFileSync(path, 'utf8'), identifiers(names).model) ?? []
  }

  /** The `create_<table>_table` migration of a model. */
  createTable(names: Names, fields: readonly Field[]): Promise<GeneratedFile> {
    refuseFrameworkTable(names.table)
    this.checkParentTables(names, fields)
    return this.render('migration', names, { migration: `create_${names.table}_table`, timestamp: this.timestamp, action: 'create', table: names.table, fields })
  }

  /** The model file, when the app does not have it yet (templates that import it need it to type-check). */
  async missingModel(names: Names, fields: readonly Field[]): Promise<GeneratedFile[]> {
    return this.has(appPaths.model(names)) ? [] : [await this.render('model', names, { fields })]
  }
}

/**
 * svc's own tables are not a generator's to create, --force or not: svc's sign-up, login, queue and keys read their
 * columns, and a migration of the same table with the resource's columns (make:crud User --force replaced make:auth's)
 * breaks them (registration answered 500 `no such column: password`).
 */
export function refuseFrameworkTable(table: string): void {
  const command = frameworkTableCommand(table)
  if (command === undefined) return
  const users = table === AUTH_USERS_TABLE
  throw new CliError(
    'E_BAD_NAME',
    `This would create ${table}, one of svc's own tables (svc ${command} writes its migration; ${users ? 'sign-up, login and tokens' : 'svc'} read${users ? '' : 's'} its columns)`,
    {
      hint: users
        ? `pick another name for a table of your own (svc make:crud Profile --fields=...,user_id:references keeps more about each user); to read users in your routes, svc make:model User --fields=... (without --migration) models the table as it is`
        : `pick another name for a table of your own; to read ${table} in your routes, svc make:model ${deriveNames(singularOfTable(table)).singular.pascal} --fields=... (without --migration) models the table as it is`,
    },
  )
}

/** The table of svc's auth (make:auth), whose users log in. */
const AUTH_USERS_TABLE = 'users'

/**
 * How to give a foreign key its parent's table: make:auth for users, the table's plural when the singular was
 * written, the table named after the type when the column's name is not the table's (author_id → users).
 */
function missingParentHint(field: Field, parent: Names, tables: ReadonlySet<string>): string {
  if (parent.table === AUTH_USERS_TABLE) return 'svc make:auth first (it writes the migration of the users table), then this command'
  const plural = deriveNames(parent.table).table
  if (plural !== parent.table && tables.has(plural)) return `the app's table is ${plural}: ${field.name}:references:${plural}${field.optional ? '?' : ''}`
  const named = tables.has(AUTH_USERS_TABLE) ? AUTH_USERS_TABLE : '<table>'
  return `svc make:crud ${parent.singular.pascal} first (or svc make:migration create_${parent.table}_table), then this command; or name the table it points at: ${field.name}:references:${named}${field.optional ? '?' : ''}`
}

/**
 * A table naming its own rows (`project_id:references` on projects): its factory would store a parent for each row,
 * which would need one in turn, without end. Refused (`E_BAD_FIELDS`); such a column is the migration's to add.
 */
function refuseSelfReference(names: Names, fields: readonly Field[]): void {
  const own = fields.find((field) => field.type === 'references' && parentOf(field).table === names.table)
  if (own === undefined) return
  throw new CliError('E_BAD_FIELDS', `--fields: ${own.name} references ${names.table}, the table itself, which generated factories and tests cannot fill`, {
    hint: `write it as ${own.name}:integer? and add \`references ${names.table} (id)\` to the migration by hand`,
  })
}

/** The event a listener's file is defined for (`defineListener(OrderShipped, …)`), when it reads that way. */
function listenedEvent(source: string): string | undefined {
  return /defineListener\(\s*([A-Za-z_$][\w$]*)/.exec(source)?.[1]
}

/** The names with the singular as the base (make:crud's request is `ProductRequest`, whatever was typed). */
export function singular(names: Names): Names {
  return { ...names, base: names.singular }
}

/**
 * `create_posts_table` as typed; Laravel's `CreatePostsTable` or `AddSlugToPostsTable` in snake case (a name
 * ending in Table is a migration's); else derived from a model name (`Post` → `create_posts_table`).
 */
export function migrationName(input: string): string {
  const trimmed = input.trim().replace(/\.ts$/, '')
  if (/^[a-z][a-z0-9_]*$/.test(trimmed) && trimmed.includes('_')) return trimmed
  const names = deriveNames(trimmed)
  if (names.base.snake.endsWith('_table')) return names.base.snake
  return /^[A-Z]/.test(trimmed) ? `create_${names.table}_table` : names.base.snake
}
