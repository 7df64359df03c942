/**
 * The tests make:crud writes, once the app adds to the migration what
 * docs/generators.md tells it to add there: a unique index (a duplicate is a
 * 422) still passes, since the rows the tests keep differ (the list's, and
 * those of a parent's filter and the search, which used to repeat the valid
 * row's other columns and fail on a unique one); and a create the database
 * refuses (a foreign key naming no row) fails saying why, with the answer's
 * body, not with a bare status or a count that went negative further down.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { AppCopy } from '../helpers/cli.ts'
import { runSvc } from '../helpers/run-svc.ts'
import { SECRET } from '../auth/helpers.ts'
import { generatorApp, projectTests } from './helpers.ts'

let app: AppCopy

/** Rewrites the migration that creates `table`. */
function editMigration(table: string, edit: (text: string) => string): void {
  const name = readdirSync(app.path('database', 'migrations')).find((file) => file.endsWith(`_create_${table}_table.ts`))!
  const path = app.path('database', 'migrations', name)
  writeFileSync(path, edit(readFileSync(path, 'utf8')))
}

/** Runs `sql` after the migration's create table statement. */
const after = (sql: string) => (text: string) => text.replace('  )`)\n', `  )\`)\n  await db.execute('${sql}')\n`)

beforeAll(async () => {
  app = generatorApp()
  app.write('.env', `APP_ENV=test\nAPP_DEBUG=false\nJWT_SECRET=${SECRET}\nPASSWORD_HASH_MEMORY_KIB=64\nPASSWORD_HASH_ITERATIONS=1\n`)
  for (const args of [['Sku', '--fields=code:string,label:text?,stock:integer,price:number'], ['Note', '--fields=owner_id:integer,body:text'], ['Shelf', '--fields=name:string'], ['Barcode', '--fields=label:string,code:string,shelf_id:references']]) {
    const made = await runSvc(['make:crud', ...args], { cwd: app.dir })
    expect(made.exitCode, made.stderr).toBe(0)
  }
  editMigration('skus', after('create unique index "skus_code_unique" on "skus" ("code")'))
  editMigration('skus', after('create unique index "skus_stock_price_unique" on "skus" ("stock", "price")'))
  // Not the searched column (label): the search's row keeps the others.
  editMigration('barcodes', after('create unique index "barcodes_code_unique" on "barcodes" ("code")'))
  // A foreign key to a table with no rows: every create is refused (409).
  editMigration('notes', (text) => after('create table "owners" ("id" integer primary key)')(text).replace('"owner_id" integer not null,', '"owner_id" integer not null references "owners" ("id"),'))
})
afterAll(() => app?.remove())

it('the generated tests pass with unique indexes on the columns; a refused create fails with the answer’s body as the message', async () => {
  const migration = readdirSync(app.path('database', 'migrations')).find((file) => file.endsWith('_create_skus_table.ts'))!
  expect(readFileSync(app.path('database', 'migrations', migration), 'utf8').match(/create unique index/g)).toHaveLength(2)
  const result = await projectTests(app, ['tests/skus.test.ts', 'tests/notes.test.ts', 'tests/barcodes.test.ts'])
  expect(result.output).toMatch(/✓ tests\/skus\.test\.ts/)
  expect(result.output).toMatch(/✓ tests\/barcodes\.test\.ts/)
  expect(result.output).toMatch(/FAIL +tests\/notes\.test\.ts > notes > creates/)
  expect(result.output).toContain('{"success":false,"error":"Note refers to a row that does not exist: owner_id 7 names no row of owners","code":409}: expected 409 to be 201')
  // The list's failure is the create's, not a count gone wrong further down.
  expect(result.output).not.toMatch(/expected [+-]?\d+ to be -\d+/)
}, 180_000)
