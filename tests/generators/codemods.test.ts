/**
 * The edits generators make to files the app owns: parsed first, text
 * inserted at positions of the tree, every other byte kept; a file whose
 * shape is not recognised is left untouched, with the lines to add; running
 * an edit twice changes nothing.
 */
import { describe, expect, it } from 'vitest'
import { defineRoutes } from 'svc'
import { addListener } from '../../cli/generators/codemods/listeners.ts'
import { modelFields } from '../../cli/generators/codemods/model-fields.ts'
import { parseFields } from '../../cli/generators/fields.ts'
import { builtinTemplate } from '../../cli/generators/templates.ts'
import '../../cli/generators/index.ts'
import { observeModel } from '../../cli/generators/codemods/model-observer.ts'
import { registerResourceRoutes, routesPlacement } from '../../cli/generators/codemods/routes.ts'
import { addLangFile, useTranslatedValidation } from '../../cli/generators/codemods/translations.ts'
import { resourceRoutes } from '../../cli/generators/crud.ts'
import type { EditOutcome } from '../../cli/generators/write-plan.ts'
import { deriveNames } from '../../cli/generators/names.ts'
import { singular } from '../../cli/generators/generator.ts'
import { parseRouteFile } from '../../cli/lsp/route-file.ts'

const products = resourceRoutes(singular(deriveNames('Product')), true)

function changed(outcome: EditOutcome): string {
  if (outcome.status !== 'changed') throw new Error(`expected a change, got ${JSON.stringify(outcome)}`)
  return outcome.contents
}

/** The routes the file declares, as the language server reads them (full paths). */
function routePaths(source: string): string[] {
  return parseRouteFile(source, '/api').routes.map((route) => `${route.method} ${route.path}`)
}

/** Runs the edit, checks that a second run changes nothing, and (unless a one-line block had to open) that every line of the file is still there. */
function register(source: string, linesKept = true): string {
  const first = changed(registerResourceRoutes(source, products))
  expect(registerResourceRoutes(first, products)).toEqual({ status: 'unchanged' })
  if (!linesKept) return first
  const kept = first.split('\n')
  let at = 0
  for (const line of source.split('\n')) {
    const found = kept.indexOf(line, at)
    expect(found, `line kept: ${line}`).toBeGreaterThanOrEqual(0)
    at = found + 1
  }
  return first
}

describe('registering a resource in routes/api.ts', () => {
  it('adds the imports and the five routes, declaring their schemas and auth, before the fallback', () => {
    const source = `/** Every route here is under /api. */
import { defineRoutes, HttpError } from 'svc'
import * as posts from '../app/controllers/posts.ts'

export default defineRoutes((r) => {
  r.get('/posts', posts.listPosts)

  // Anything else
  r.fallback((c) => {
    throw new HttpError(404, 'nope')
  })
})
`
    const result = register(source)
    expect(result).toBe(`/** Every route here is under /api. */
import { defineRoutes, HttpError } from 'svc'
import * as posts from '../app/controllers/posts.ts'
import * as products from '../app/controllers/products.ts'
import { ProductListQuery, ProductRequest } from '../app/requests/product-request.ts'
import { ProductCollection, ProductResource } from '../app/resources/product-resource.ts'

export default defineRoutes((r) => {
  r.get('/posts', posts.listPosts)

  // products: list, show, create, update, delete (svc make:crud Product)
  r.get('/products', products.listProducts).query(ProductListQuery).response(ProductCollection).middleware('auth')
  r.get('/products/{id}', products.showProduct).where('id', /\\d+/).response(ProductResource).middleware('auth')
  r.post('/products', products.createProduct).body(ProductRequest).response(ProductResource, { status: 201 }).middleware('auth')
  r.put('/products/{id}', products.updateProduct).where('id', /\\d+/).body(ProductRequest).response(ProductResource).middleware('auth')
  r.delete('/products/{id}', products.deleteProduct).where('id', /\\d+/).response(null, { status: 204 }).middleware('auth')

  // Anything else
  r.fallback((c) => {
    throw new HttpError(404, 'nope')
  })
})
`)
    const route = parseRouteFile(result, '/api').routes.find((each) => each.method === 'POST' && each.path === '/api/products')!
    expect(route.middleware.map((each) => each.name)).toEqual(['auth'])
  })

  it('goes into the highest version group, whatever the order, with that group’s registrar name', () => {
    const source = `import { defineRoutes } from 'svc'

export default defineRoutes((router) => {
  router.version(2, (v2) => {
    v2.get('/posts', () => [])
  })
  router.version(1, (v1) => {
    v1.get('/posts', () => [])
  })
})
`
    const result = register(source)
    expect(routePaths(result)).toContain('GET /api/v2/products/{id}')
    expect(routePaths(result).filter((path) => path.includes('products'))).toHaveLength(5)
    expect(result).toContain("    v2.get('/products', products.listProducts)")
    expect(routesPlacement(source).prefix).toBe('/api/v2')
    expect(routesPlacement(`import { defineRoutes } from 'svc'\nexport default defineRoutes((r) => {})\n`).prefix).toBe('/api')
  })

  it('keeps comments, odd formatting, semicolons and tabs around it', () => {
    const source = `// routes, by hand
import {defineRoutes} from "svc";
/* block comment */ import * as posts from "../app/controllers/posts.ts"; // trailing

export default defineRoutes(function (r) {
\tr.get("/posts",posts.listPosts) ; // list
\t/* the end */
});
`
    const result = register(source)
    expect(result).toContain(`\tr.get("/posts",posts.listPosts) ; // list\n\n\t// products: list`)
    expect(result).toContain("\tr.delete('/products/{id}', products.deleteProduct).where('id', /\\d+/).response(null, { status: 204 }).middleware('auth')\n\t/* the end */")
    expect(result).toContain(`; // trailing\nimport * as products from '../app/controllers/products.ts'`)
  })

  it('fills a one-line or empty callback, and a file without imports', () => {
    const oneLine = register(`import { defineRoutes } from 'svc'\nexport default defineRoutes((r) => { r.get('/ping', () => 'pong') })\n`, false)
    expect(routePaths(oneLine)).toEqual(expect.arrayContaining(['GET /api/ping', 'GET /api/products', 'DELETE /api/products/{id}']))
    const empty = register(`import { defineRoutes } from 'svc'\n\nexport default defineRoutes((r) => {})\n`, false)
    expect(routePaths(empty)).toHaveLength(5)
    const noImport = changed(registerResourceRoutes(`const defineRoutes = (f: unknown) => f\nexport default defineRoutes((r: any) => {\n})\n`, products))
    expect(noImport.startsWith("import * as products from")).toBe(true)
    expect(noImport).toContain("\n\nconst defineRoutes")
  })

  it('accepts `const routes = defineRoutes(...); export default routes`', () => {
    const result = register(`import { defineRoutes } from 'svc'\nconst routes = defineRoutes((r) => {\n  r.get('/a', () => 1)\n})\nexport default routes\n`)
    expect(routePaths(result)).toContain('PUT /api/products/{id}')
  })

  it('does not add routes the file already has (the five, at that place), and reuses an import it has', () => {
    const all = changed(registerResourceRoutes(`import { defineRoutes } from 'svc'\nexport default defineRoutes((r) => {\n})\n`, products))
    expect(registerResourceRoutes(all, products)).toEqual({ status: 'unchanged' })
    // Some other route on the resource's paths: a conflict, not "already there" (make:crud then refuses).
    const has = `import { defineRoutes } from 'svc'\nimport * as catalogue from '../app/controllers/products.ts'\nexport default defineRoutes((r) => {\n  r.get('/products', catalogue.listProducts)\n})\n`
    expect(registerResourceRoutes(has, products)).toEqual({ status: 'conflict', reason: 'routes/api.ts already has GET /api/products, not the five routes of this resource' })
    const importOnly = changed(registerResourceRoutes(`import { defineRoutes } from 'svc'\nimport * as catalogue from '../app/controllers/products.ts'\nexport default defineRoutes((r) => {\n})\n`, products))
    expect(importOnly).toContain("r.get('/products', catalogue.listProducts)")
    expect(importOnly.match(/controllers\/products\.ts/g)).toHaveLength(1)
  })

  it('picks another name when `products` is taken by something else', () => {
    const result = changed(registerResourceRoutes(`import { defineRoutes } from 'svc'\nimport products from './data.ts'\nexport default defineRoutes((r) => {\n  r.get('/x', () => products)\n})\n`, products))
    expect(result).toContain("import * as productsController from '../app/controllers/products.ts'")
    expect(result).toContain('productsController.showProduct')
  })

  it('creates routes/api.ts when the app has none', () => {
    const created = changed(registerResourceRoutes(undefined, products))
    expect(created.startsWith('/** Every route here is under /api. */\nimport { defineRoutes } from \'svc\'\n')).toBe(true)
    expect(routePaths(created)).toHaveLength(5)
  })

  it.each([
    ['a syntax error', `import { defineRoutes } from 'svc'\nexport default defineRoutes((r) => {\n  r.get('/a', \n})\n`, /does not parse/],
    ['no defineRoutes', `export default { routes: [] }\n`, /no `export default defineRoutes/],
    ['an expression body', `import { defineRoutes } from 'svc'\nexport default defineRoutes((r) => r.get('/a', () => 1))\n`, /block body/],
    ['a destructured registrar', `import { defineRoutes } from 'svc'\nexport default defineRoutes(({ get }) => {\n  get('/a', () => 1)\n})\n`, /no `export default defineRoutes/],
    ['a clashing schema name', `import { defineRoutes } from 'svc'\nimport { ProductRequest } from './mine.ts'\nexport default defineRoutes((r) => {\n})\n`, /already declares ProductRequest/],
  ])('leaves a file with %s untouched and gives the lines to add', (_label, source, reason) => {
    const outcome = registerResourceRoutes(source, products)
    expect(outcome.status).toBe('manual')
    if (outcome.status !== 'manual') return
    expect(outcome.reason).toMatch(reason)
    expect(outcome.lines).toContain("import * as products from '../app/controllers/products.ts'")
    expect(outcome.lines).toContain("r.get('/products', products.listProducts).query(ProductListQuery).response(ProductCollection).middleware('auth')")
  })

  it('--public routes have no auth; the result is a route file the framework accepts', () => {
    const open = resourceRoutes(singular(deriveNames('Tag')), false)
    const result = changed(registerResourceRoutes(`import { defineRoutes } from 'svc'\nexport default defineRoutes((r) => {\n})\n`, open))
    expect(result).not.toContain("'auth'")
    // The generated chain is valid for the router (constraint, schemas) with stand-in handlers and schemas.
    const body = { '~standard': { version: 1, vendor: 'test', validate: (value: unknown) => ({ value }) } } as const
    const definition = defineRoutes((r) => {
      r.get('/tags/{id}', () => null).where('id', /\d+/).response(body)
      r.put('/tags/{id}', () => null).where('id', /\d+/).body(body).response(body)
    })
    expect(definition.routes).toHaveLength(2)
  })
})

describe('the other edits', () => {
  it('app/listeners/index.ts: created, then each listener appended once (one-line and multi-line lists)', () => {
    const first = changed(addListener(undefined, { specifier: './send-mail.ts', alias: 'sendMail' }))
    expect(first).toContain("import sendMail from './send-mail.ts'\n\nexport default [sendMail] satisfies Listener[]")
    const second = changed(addListener(first, { specifier: './notify.ts', alias: 'notify' }))
    expect(second).toContain("import notify from './notify.ts'")
    expect(second).toContain('export default [sendMail, notify] satisfies Listener[]')
    expect(addListener(second, { specifier: './notify.ts', alias: 'notify' })).toEqual({ status: 'unchanged' })
    const multi = changed(addListener(`import a from './a.ts'\n\nexport default [\n  a,\n]\n`, { specifier: './b.ts', alias: 'b' }))
    expect(multi).toBe(`import a from './a.ts'\nimport b from './b.ts'\n\nexport default [\n  a,\n  b,\n]\n`)
    expect(addListener('export const listeners = []\n', { specifier: './b.ts', alias: 'b' })).toMatchObject({ status: 'manual' })
  })

  it('a model observes its observer, once; a file without the model is left alone', () => {
    const model = `import { defineModel } from 'svc'\n\nexport interface Product { id: number }\n\nexport const Product = defineModel<Product>({ name: 'Product', table: 'products', fillable: [] })\n`
    const observer = { specifier: '../observers/product-observer.ts', name: 'productObserver' }
    const result = changed(observeModel(model, 'Product', observer))
    expect(result).toBe(`import { defineModel } from 'svc'\nimport { productObserver } from '../observers/product-observer.ts'\n\nexport interface Product { id: number }\n\nexport const Product = defineModel<Product>({ name: 'Product', table: 'products', fillable: [] })\n\nProduct.observe(productObserver)\n`)
    expect(observeModel(result, 'Product', observer)).toEqual({ status: 'unchanged' })
    expect(observeModel('export const Item = 1\n', 'Product', observer)).toMatchObject({ status: 'manual', lines: [expect.stringContaining('import { productObserver }'), 'Product.observe(productObserver)'] })
    expect(observeModel(undefined, 'Product', observer)).toMatchObject({ status: 'manual' })
  })

  it('lang/index.ts: created, a new file of a locale, a new locale, once each', () => {
    const first = changed(addLangFile(undefined, { locale: 'fr', file: 'validation', specifier: './fr/validation.ts', alias: 'frValidation' }))
    expect(first).toContain('fr: { validation: frValidation },')
    const second = changed(addLangFile(first, { locale: 'fr', file: 'messages', specifier: './fr/messages.ts', alias: 'frMessages' }))
    expect(second).toContain('fr: { validation: frValidation, messages: frMessages },')
    const third = changed(addLangFile(second, { locale: 'pt-BR', file: 'messages', specifier: './pt-BR/messages.ts', alias: 'ptBrMessages' }))
    expect(third).toContain("    'pt-BR': { messages: ptBrMessages },")
    expect(addLangFile(third, { locale: 'fr', file: 'messages', specifier: './fr/messages.ts', alias: 'frMessages' })).toEqual({ status: 'unchanged' })
    expect(addLangFile('export const lang = 1\n', { locale: 'fr', file: 'x', specifier: './fr/x.ts', alias: 'frX' })).toMatchObject({ status: 'manual' })
  })

  it('app/kernel.ts: validation messages through the translations, added to its options once', () => {
    expect(changed(useTranslatedValidation(undefined, '../lang/index.ts'))).toContain('validationMessage: lang.validationMessage,')
    const kernel = `import { defineKernel } from 'svc'\nimport { timing } from './middleware/timing.ts'\n\nexport default defineKernel({\n  middleware: [timing],\n})\n`
    const result = changed(useTranslatedValidation(kernel, '../lang/index.ts'))
    expect(result).toBe(`import { defineKernel } from 'svc'\nimport { timing } from './middleware/timing.ts'\nimport { lang } from '../lang/index.ts'\n\nexport default defineKernel({\n  middleware: [timing],\n  validationMessage: lang.validationMessage,\n})\n`)
    expect(useTranslatedValidation(result, '../lang/index.ts')).toEqual({ status: 'unchanged' })
    expect(useTranslatedValidation(`import { defineKernel } from 'svc'\nexport default defineKernel({ validationMessage: mine })\n`, '../lang/index.ts')).toMatchObject({
      status: 'manual',
      reason: expect.stringContaining('already sets validationMessage (mine)'),
    })
    expect(changed(useTranslatedValidation(`import { defineKernel } from 'svc'\nexport default defineKernel({})\n`, '../lang/index.ts'))).toContain('defineKernel({ validationMessage: lang.validationMessage })')
  })

  it('reads the fields of a model the app has from its row type', () => {
    const source = `export interface Product {\n  id: number\n  name: string\n  price: number | null\n  active: boolean\n  tags: string[]\n  created_at: string\n}\n`
    expect(modelFields(source, 'Product')).toEqual([
      { name: 'name', type: 'string', optional: false },
      { name: 'price', type: 'number', optional: true },
      { name: 'active', type: 'boolean', optional: false },
    ])
    expect(modelFields(source, 'Other')).toBeUndefined()
  })

  it("reads a references field's table from the model's mark (author_id: number // references users)", async () => {
    const model = (await builtinTemplate('model'))({ kind: 'model', names: deriveNames('Article'), options: { fields: parseFields('author_id:references:users?,project_id:references') } })
    expect(model.contents).toContain('author_id: number | null // references users')
    expect(modelFields(model.contents, 'Article')).toEqual([
      { name: 'author_id', type: 'references', optional: true, table: 'users' },
      { name: 'project_id', type: 'references', optional: false, table: 'projects' },
    ])
  })

  it('keeps the date type: marked by the model generator, or named so (published_on); the request and factory follow it', async () => {
    const names = deriveNames('Book')
    const model = (await builtinTemplate('model'))({ kind: 'model', names, options: { fields: parseFields('title:string,released:date,status:string?') } })
    expect(modelFields(model.contents, 'Book')).toEqual([
      { name: 'title', type: 'string', optional: false },
      { name: 'released', type: 'date', optional: false },
      { name: 'status', type: 'string', optional: true },
    ])
    // A model written before the mark (the user's books): the name says it.
    const older = `export interface Book {\n  id: number\n  title: string\n  published_on: string | null\n  read_at: string\n  created_at: string\n}\n`
    const fields = modelFields(older, 'Book')!
    expect(fields.map((field) => field.type)).toEqual(['string', 'date', 'date'])
    const request = (await builtinTemplate('request'))({ kind: 'request', names, options: { fields, list: true } }).contents
    expect(request).toContain('published_on: v.optional(v.nullable(utcTimestamp()), null),')
    const factory = (await builtinTemplate('factory'))({ kind: 'factory', names, options: { fields } }).contents
    expect(factory).toContain('published_on: new Date(Date.UTC(2026, 0, n)).toISOString(),')
  })
})
