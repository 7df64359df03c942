/**
 * What the model layer (framework/model) costs over the SQL it sends: each
 * operation through the model and the same statements through the Database
 * handle, on one libSQL file (rounds interleaved, minimum and median per
 * operation). A measurement for docs/models.md, not part of `npm run bench`:
 *
 *   node --import jiti/register bench/models.ts
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { defineModel, type Database } from 'svc'
import { openDatabase } from 'svc/node'
import { median } from './lib/stats.ts'

interface Product {
  id: number
  name: string
  price: number
  active: boolean
  created_at: string
  updated_at: string
}
const Product = defineModel<Product, { name: string; price: number; active: boolean }>({
  name: 'Product',
  table: 'products',
  fillable: ['name', 'price', 'active'],
  casts: { active: 'boolean' },
})

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-models-'))
const db: Database = await openDatabase({ storageDir: dir, projectDir: dir })
await db.execute(`create table products (id integer primary key autoincrement, name text not null, price real not null, active integer not null,
  created_at text not null default (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')), updated_at text not null default (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')))`)
await db.batch(Array.from({ length: 1000 }, (_, i) => ({ sql: 'insert into products (name, price, active) values (?, ?, ?)', args: [`Product ${i}`, i, i % 2] })))

let id = 1
const next = () => (id = (id % 1000) + 1)
const operations: Array<[string, () => Promise<unknown>]> = [
  ['find        raw', () => db.first('select * from products where "id" = ?', [next()])],
  ['find        model', () => Product.find(db, next())],
  ['paginate 20 raw', async () => {
    const total = await db.first('select count(*) as total from products where "active" = ?', [1])
    return [total, await db.all('select * from products where "active" = ? order by "price" desc, "id" desc limit 20 offset 100', [1])]
  }],
  ['paginate 20 model', () => Product.paginate(db, { page: 6, perPage: 20, where: { active: true }, sort: '-price' })],
  ['update      raw', () => db.first(`update products set "price" = ?, "updated_at" = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') where "id" = ? returning *`, [3, next()])],
  ['update      model', () => Product.update(db, next(), { price: 3 })],
]

async function time(run: () => Promise<unknown>, iterations: number): Promise<number> {
  const started = process.hrtime.bigint()
  for (let i = 0; i < iterations; i++) await run()
  return Number(process.hrtime.bigint() - started) / iterations / 1000
}

const ITERATIONS = 300
for (const [, run] of operations) await time(run, ITERATIONS)
const samples = operations.map(() => [] as number[])
for (let round = 0; round < 12; round++) {
  // Each pair in turn, its order swapped every other round (neither side always runs on a warmer cache).
  for (let pair = 0; pair < operations.length; pair += 2) {
    for (const i of round % 2 === 0 ? [pair, pair + 1] : [pair + 1, pair]) samples[i]!.push(await time(operations[i]![1], ITERATIONS))
  }
}
for (const [i, [name]] of operations.entries()) {
  // Pairs run back to back in each round: the median of their per-round ratios is the least disturbed by the machine's load.
  const ratio = i % 2 === 1 ? `  model/raw ${median(samples[i]!.map((value, round) => value / samples[i - 1]![round]!)).toFixed(2)}x` : ''
  console.log(`${name.padEnd(18)} min ${Math.min(...samples[i]!).toFixed(1).padStart(7)}  median ${median(samples[i]!).toFixed(1).padStart(7)} µs${ratio}`)
}
db.close()
rmSync(dir, { recursive: true, force: true })
