import { filterWhere, isFilter, isSearchable, type Field } from '../fields.ts'
import type { Names } from '../names.ts'
import { appPaths, identifiers, importPath } from '../paths.ts'
import { defineTemplate, type WithFields } from '../template.ts'

export interface ControllerOptions extends WithFields {
  /** The five resource handlers (list, show, create, update, delete); else one list handler to start from. */
  resource: boolean
  /** Through the service and repository layers (make:crud), or the model directly (`--simple`). */
  layered: boolean
  /** make:crud --owned: each row is its creator's (`user_id` from the token); others are answered 404. */
  owned?: boolean
}

declare module '../template.ts' {
  interface TemplateOptions {
    controller: ControllerOptions
  }
}

/**
 * `app/controllers/<plural>.ts`: the handlers, named functions the routes
 * attach (`r.get('/products', products.listProducts)`), each typed from its
 * route's path and declared input.
 */
export default defineTemplate('controller', ({ names, options }) => {
  const id = identifiers(names)
  const path = appPaths.controller(names)
  const collection = names.routePath
  const member = `${names.routePath}/{id}`
  if (!options.resource) {
    return {
      path,
      contents: `/** The ${names.plural.words} handlers: attach them in routes/api.ts (\`r.get('${collection}', ${id.controllerAlias}.${id.handlers.list})\`). */
import type { Context } from 'svc'

export async function ${id.handlers.list}(c: Context<'${collection}'>) {
  return { path: c.path, items: [] }
}
`,
    }
  }
  const imports = [
    "import type { Context } from 'svc'",
    `import type { ${id.listQuery}, ${id.request} } from '${importPath(path, appPaths.request(names))}'`,
    `import { ${id.resourceFunction} } from '${importPath(path, appPaths.resource(names))}'`,
    options.layered
      ? `import { ${id.service} } from '${importPath(path, appPaths.service(names))}'`
      : `import { ${id.model} } from '${importPath(path, appPaths.model(names))}'`,
  ].sort((a, b) => specifierOrder(a).localeCompare(specifierOrder(b)))
  const one = names.singular.camel
  const searchable = options.fields.filter(isSearchable).map((field) => `'${field.name}'`)
  const filters = options.fields.filter(isFilter)
  const query = `${searchable.length > 0 ? 'page, perPage, search, sort' : 'page, perPage, sort'}${filters.map((field) => `, ${field.name}`).join('')}`
  const owned = options.owned === true
  const body = owned ? ownedBodies(names, options.layered, options.fields, query, searchable) : options.layered
    ? {
        list: `const { ${query} } = c.query\n  const result = await new ${id.service}(c.db).list({ ${query} })`,
        show: `return ${id.resourceFunction}(await new ${id.service}(c.db).get(Number(c.params.id)))`,
        create: `const ${one} = await new ${id.service}(c.db).create(await c.body())`,
        update: `return ${id.resourceFunction}(await new ${id.service}(c.db).update(Number(c.params.id), await c.body()))`,
        delete: `await new ${id.service}(c.db).delete(Number(c.params.id))`,
      }
    : {
        list: `const { ${query} } = c.query\n  const result = await ${id.model}.paginate(c.db, { page, perPage, sort${searchable.length === 0 ? '' : `, search: search === undefined ? undefined : { term: search, columns: [${searchable.join(', ')}] }`}${filterWhere(options.fields)} })`,
        show: `return ${id.resourceFunction}(await ${id.model}.findOrFail(c.db, Number(c.params.id)))`,
        create: `const ${one} = await ${id.model}.create(c.db, await c.body())`,
        update: `const ${one} = await ${id.model}.update(c.db, Number(c.params.id), await c.body())\n  if (${one} === undefined) throw new HttpError(404, '${names.label} not found')\n  return ${id.resourceFunction}(${one})`,
        delete: `if ((await ${id.model}.delete(c.db, Number(c.params.id))) === undefined) throw new HttpError(404, '${names.label} not found')`,
      }
  if (!options.layered || owned) imports[imports.findIndex((line) => line.includes("from 'svc'"))] = "import { HttpError, type Context } from 'svc'"
  // The owner check's helper returns the row: its type, beside the service.
  if (owned && options.layered) imports.push(`import type { ${id.model} } from '${importPath(path, appPaths.model(names))}'`)
  imports.sort((a, b) => specifierOrder(a).localeCompare(specifierOrder(b)))
  return {
    path,
    contents: `/**
 * The ${names.plural.words} resource: list (paginated, searchable, sortable), show, create, update, delete.
 * Routes: routes/api.ts; input: ${appPaths.request(names)}; output: ${appPaths.resource(names)}.
 */
${imports.join('\n')}

/** \`?page=&per_page=${searchable.length === 0 ? '' : '&search='}&sort=${filters.map((field) => `&${field.name}=`).join('')}\`: one page, with \`meta: { page, per_page, total, last_page }\` beside the rows. */
export async function ${id.handlers.list}(c: Context<'${collection}', { query: typeof ${id.listQuery} }>): Promise<Response> {
  ${body.list}
  return c.json(result.data.map(${id.resourceFunction}), { meta: { ...result.meta } })
}

export async function ${id.handlers.show}(c: Context<'${member}'>) {
  ${body.show}
}

/** 201 with the stored ${names.singular.words}. */
export async function ${id.handlers.create}(c: Context<'${collection}', { body: typeof ${id.request} }>): Promise<Response> {
  ${body.create}
  return c.json(${id.resourceFunction}(${one}), { status: 201, message: '${names.label} created' })
}

export async function ${id.handlers.update}(c: Context<'${member}', { body: typeof ${id.request} }>) {
  ${body.update}
}

/** 204 without a body. */
export async function ${id.handlers.delete}(c: Context<'${member}'>): Promise<Response> {
  ${body.delete}
  return new Response(null, { status: 204 })
}
${owned ? ownerHelpers(names, options.layered) : ''}`,
  }
})

/**
 * make:crud --owned: the handlers' bodies when each row is its creator's. The owner comes from the token on create;
 * the list has the user's rows (an admin's: every one); show, update and delete go through the owner check first.
 */
function ownedBodies(names: Names, layered: boolean, fields: readonly Field[], query: string, searchable: string[]) {
  const id = identifiers(names)
  const one = names.singular.camel
  const own = `own${id.model}(c)`
  const notFound = `new HttpError(404, '${names.label} not found')`
  if (layered) {
    return {
      list: `const { ${query} } = c.query\n  const result = await new ${id.service}(c.db).list({ ${query}, ...visibleTo(c.user!) })`,
      show: `return ${id.resourceFunction}(await ${own})`,
      create: `const ${one} = await new ${id.service}(c.db).create({ ...(await c.body()), user_id: c.user!.id })`,
      update: `return ${id.resourceFunction}(await new ${id.service}(c.db).update((await ${own}).id, await c.body()))`,
      delete: `await new ${id.service}(c.db).delete((await ${own}).id)`,
    }
  }
  const where = [...fields.filter(isFilter).map((field) => `...(${field.name} === undefined ? {} : { ${field.name} })`), '...visibleTo(c.user!)'].join(', ')
  return {
    list: `const { ${query} } = c.query\n  const result = await ${id.model}.paginate(c.db, { page, perPage, sort${searchable.length === 0 ? '' : `, search: search === undefined ? undefined : { term: search, columns: [${searchable.join(', ')}] }`}, where: { ${where} } })`,
    show: `return ${id.resourceFunction}(await ${own})`,
    create: `const ${one} = await ${id.model}.create(c.db, { ...(await c.body()), user_id: c.user!.id })`,
    update: `const ${one} = await ${id.model}.update(c.db, (await ${own}).id, await c.body())\n  if (${one} === undefined) throw ${notFound}\n  return ${id.resourceFunction}(${one})`,
    delete: `if ((await ${id.model}.delete(c.db, (await ${own}).id)) === undefined) throw ${notFound}`,
  }
}

/** The two helpers of an owned resource's controller: whose rows a user sees, and the row of a member route. */
function ownerHelpers(names: Names, layered: boolean): string {
  const id = identifiers(names)
  const one = names.singular.camel
  const read = layered ? `new ${id.service}(c.db).get(Number(c.params.id))` : `${id.model}.findOrFail(c.db, Number(c.params.id))`
  return `
/** The rows a user sees: their own, or every one's for an admin. */
function visibleTo(user: NonNullable<Context['user']>): { user_id?: number } {
  return user.role === 'admin' ? {} : { user_id: user.id }
}

/**
 * The ${names.singular.words} of this id, when the signed-in user may see it (theirs; any, for an admin). Another
 * user's is a 404, as a missing one: its existence is not told. Its owner never changes, so what this read finds
 * still holds when the update or delete runs.
 */
async function own${id.model}(c: Context<'${names.routePath}/{id}'>): Promise<${id.model}> {
  const ${one} = await ${read}
  if (${one}.user_id !== c.user!.id && c.user!.role !== 'admin') throw new HttpError(404, '${names.label} not found')
  return ${one}
}
`
}

/** Packages first, then the app's own files, by path. */
function specifierOrder(line: string): string {
  const specifier = line.split("'")[1]!
  return `${specifier.startsWith('.') ? 1 : 0}${specifier}`
}
