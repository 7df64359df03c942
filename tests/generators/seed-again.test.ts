/**
 * `svc db:seed` on a database that already has rows, as a user runs it
 * after `make:crud Product --seed` and a unique index added to the
 * migration: seeding again (after a row added by hand) adds ten more rows
 * instead of failing on `Product 1` again, since a factory's sequence goes on
 * after the rows the table holds. And run twice in one process (the CLI in
 * process, as tests and the language server run it), the second run sees an
 * edit of the factory made in between. Before `svc migrate`, the fix names the
 * migration to run.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadApp } from '../../cli/project/load-app.ts'
import { findProject } from '../../cli/project/project.ts'
import { SECRET } from '../auth/helpers.ts'
import { spawnSvc, type AppCopy } from '../helpers/cli.ts'
import { runSvc } from '../helpers/run-svc.ts'
import { generatorApp } from './helpers.ts'

let app: AppCopy

async function productNames(): Promise<string[]> {
  const loaded = await loadApp(findProject(app.dir))
  try {
    return (await loaded.database!.all<{ name: string }>('select name from products order by id')).map((row) => row.name)
  } finally {
    await loaded.close()
  }
}

beforeAll(async () => {
  app = generatorApp()
  app.write('.env', `APP_ENV=development\nAPP_DEBUG=false\nJWT_SECRET=${SECRET}\n`)
  expect((await runSvc(['make:crud', 'Product', '--fields=name:string,price:number', '--seed'], { cwd: app.dir })).exitCode).toBe(0)
  // The unique index docs/generators.md says to add to the migration make:crud writes.
  const name = readdirSync(app.path('database', 'migrations')).find((file) => file.endsWith('_create_products_table.ts'))!
  const path = app.path('database', 'migrations', name)
  writeFileSync(path, readFileSync(path, 'utf8').replace('"name" text not null,', '"name" text not null unique,'))
  expect((await runSvc(['migrate'], { cwd: app.dir })).exitCode).toBe(0)
}, 120_000)
afterAll(() => app?.remove())

describe('svc db:seed twice', () => {
  it('adds ten more products after the ones the table holds (a row added by hand included), where the second run failed on a taken name', async () => {
    const first = await spawnSvc(['db:seed', '--class=products'], { cwd: app.dir, timeoutMs: 60_000 })
    expect(first.code, first.stderr).toBe(0)
    expect(first.stdout).toContain('Seeded products: +10 products')
    const loaded = await loadApp(findProject(app.dir))
    try {
      await loaded.database!.execute("insert into products (name, price) values ('Desk lamp', 12.5)")
    } finally {
      await loaded.close()
    }
    const second = await spawnSvc(['db:seed', '--class=products'], { cwd: app.dir, timeoutMs: 60_000 })
    expect(second.code, second.stderr).toBe(0)
    expect(second.stdout).toContain('Seeded products: +10 products')
    const names = await productNames()
    expect(names).toHaveLength(21)
    expect(new Set(names).size).toBe(21)
    expect(names.slice(10, 13)).toEqual(['Desk lamp', 'Product 12', 'Product 13'])
  }, 120_000)
})

describe('svc db:seed twice in one process', () => {
  it('imports the factory as it is now: an edit between the runs is seen, where the first import was kept', async () => {
    expect((await runSvc(['db:seed', '--class=products'], { cwd: app.dir })).exitCode).toBe(0)
    const factory = 'database/factories/product-factory.ts'
    app.write(factory, app.read(factory).replace('`Product ${n}`', '`Gadget ${n}`'))
    const again = await runSvc(['db:seed', '--class=products'], { cwd: app.dir })
    expect(again.exitCode, again.stderr).toBe(0)
    const names = await productNames()
    expect(names.slice(-10)).toEqual(Array.from({ length: 10 }, (_, i) => `Gadget ${32 + i}`))
  }, 60_000)
})

describe('svc db:seed before svc migrate', () => {
  it('says which migration has not run and to run svc migrate, where it said to fix the seeder', async () => {
    expect((await runSvc(['make:crud', 'Gizmo', '--seed'], { cwd: app.dir })).exitCode).toBe(0)
    const seeded = await runSvc(['db:seed', '--class=gizmos'], { cwd: app.dir })
    expect(seeded.exitCode).toBe(1)
    expect(seeded.stderr).toContain('error [E_SEEDER]: Seeder gizmos failed: SQLITE_ERROR: no such table: gizmos')
    expect(seeded.stderr).toMatch(/fix: 1 migration\(s\) have not run on the database being seeded: \d{14}_create_gizmos_table; run svc migrate/)
    expect(seeded.stderr).toContain('then svc db:seed --class=gizmos (none of its rows were kept)')
  }, 60_000)
})
