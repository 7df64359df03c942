/**
 * Golden snapshots of the built-in templates (tests/generators/golden/):
 * a change to what generators write shows up as a diff to review. That the
 * output type-checks and runs is what make.test.ts and crud.test.ts prove.
 * After an intended change: `npx vitest run tests/generators/templates.test.ts -u`.
 */
import { describe, expect, it } from 'vitest'
import { parseFields } from '../../cli/generators/fields.ts'
import { singular } from '../../cli/generators/generator.ts'
import { deriveNames } from '../../cli/generators/names.ts'
import type { TemplateKind, TemplateOptions } from '../../cli/generators/template.ts'
import { builtinTemplate } from '../../cli/generators/templates.ts'
import '../../cli/generators/index.ts'

const fields = parseFields('name:string,description:text?,price:number,stock:integer,active:boolean,released_at:date?')
const product = singular(deriveNames('Product'))
const nested = singular(deriveNames('Admin/BlogPost'))

const cases: Array<[string, TemplateKind, ReturnType<typeof deriveNames>, unknown]> = [
  ['model', 'model', product, { fields }],
  ['model-empty', 'model', product, { fields: [] }],
  ['migration-create', 'migration', product, { migration: 'create_products_table', timestamp: '20260115103000', action: 'create', table: 'products', fields }],
  ['migration-alter', 'migration', product, { migration: 'add_sku_to_products_table', timestamp: '20260115103000', action: 'alter', table: 'products', fields: parseFields('sku:string,weight:number') }],
  ['migration-blank', 'migration', product, { migration: 'backfill_prices', timestamp: '20260115103000', action: 'blank', table: undefined, fields: [] }],
  ['controller', 'controller', product, { resource: false, layered: false, fields: [] }],
  ['controller-resource', 'controller', product, { resource: true, layered: false, fields }],
  ['controller-layered', 'controller', nested, { resource: true, layered: true, fields }],
  // Nothing to search: its list's comment offers no search=.
  ['controller-unsearchable', 'controller', product, { resource: true, layered: false, fields: parseFields('stock:integer,price:number') }],
  ['service', 'service', product, { repository: false }],
  ['service-layered', 'service', product, { repository: true }],
  ['repository', 'repository', product, { fields }],
  ['resource', 'resource', product, { fields, model: true }],
  ['resource-without-model', 'resource', product, { fields: parseFields('total:number'), model: false }],
  ['request', 'request', deriveNames('StoreOrder'), { fields: parseFields('quantity:integer,note:text?'), list: false }],
  ['request-list', 'request', product, { fields, list: true }],
  ['middleware', 'middleware', deriveNames('EnsureJson'), {}],
  ['observer', 'observer', product, {}],
  ['rule', 'rule', deriveNames('Uppercase'), {}],
  ['event', 'event', deriveNames('OrderShipped'), {}],
  ['listener', 'listener', deriveNames('SendShipmentMail'), { event: deriveNames('OrderShipped') }],
  ['job', 'job', deriveNames('SendWeeklyDigestJob', 'Job'), {}],
  ['job-nested', 'job', deriveNames('Reports/BuildMonthly', 'Job'), {}],
  ['mail', 'mail', deriveNames('PostPublishedMail', 'Mail'), {}],
  ['test', 'test', deriveNames('Checkout'), {}],
  ['test-resource', 'test', product, { resource: { fields, basePath: '/api/v1/products', auth: true } }],
  ['test-resource-public', 'test', nested, { resource: { fields: parseFields('title:string'), basePath: '/api/admin/blog-posts', auth: false } }],
  ['factory', 'factory', product, { fields }],
  ['factory-auth-users', 'factory', deriveNames('User'), { fields: [], authUsers: true }],
  ['seeder', 'seeder', product, { factory: false, count: 10 }],
  ['seeder-factory', 'seeder', nested, { factory: true, count: 25 }],
  ['lang-validation', 'lang', deriveNames('validation'), { locale: 'fr', file: 'validation' }],
  ['lang-messages', 'lang', deriveNames('messages'), { locale: 'pt-BR', file: 'messages' }],
]

describe('built-in templates', () => {
  it.each(cases)('%s', async (label, kind, names, options) => {
    const render = await builtinTemplate(kind)
    const file = render({ kind, names, options: options as TemplateOptions[typeof kind] })
    await expect(`// ${file.path}\n${file.contents}`).toMatchFileSnapshot(`golden/${label}.ts.txt`)
  })

  it('the tests it writes close the app only if beforeAll made one (a failed beforeAll is reported alone)', async () => {
    const render = await builtinTemplate('test')
    for (const options of [{}, { resource: { fields, basePath: '/api/products', auth: true } }]) {
      const { contents } = render({ kind: 'test', names: product, options })
      expect(contents).toContain('afterAll(() => t?.close())')
      expect(contents).not.toContain('t.close()')
    }
  })

  it('a kind is the file of its name', async () => {
    await expect(builtinTemplate('nothing' as TemplateKind)).rejects.toThrow(/No built-in template "nothing"/)
  })
})
