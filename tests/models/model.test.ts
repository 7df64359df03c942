/**
 * The model layer (framework/model): a typed table over the Database
 * interface, with casts, fillable columns, lists (filter, search, sort,
 * pages), observers told of each write, and factories.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createApp, defineFactory, defineModel, defineRoutes, HttpError, ValidationError, type Database, type ModelObserver } from 'svc'
import { createTestClient } from 'svc/testing'
import { testConfig } from '../helpers/app.ts'
import { openTestDatabase, type TestDatabase } from '../database/helpers.ts'

interface Product {
  id: number
  name: string
  price: number
  active: boolean
  tags: string[] | null
  note: string | null
  created_at: string
  updated_at: string
}
interface ProductAttributes {
  name: string
  price: number
  active?: boolean
  tags?: string[] | null
  note?: string | null
}

const Product = defineModel<Product, ProductAttributes>({
  name: 'Product',
  table: 'products',
  fillable: ['name', 'price', 'active', 'tags', 'note'],
  casts: { active: 'boolean', tags: 'json' },
})

let test: TestDatabase
let db: Database

beforeAll(async () => {
  test = await openTestDatabase()
  db = test.db
})
afterAll(() => test.close())
beforeEach(async () => {
  await db.execute('drop table if exists products')
  await db.execute(`create table products (
    id integer primary key autoincrement, name text not null, price real not null, active integer not null default 1,
    tags text, note text, secret text,
    created_at text not null default (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at text not null default (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')))`)
})

describe('defineModel', () => {
  it('creates a row from the fillable attributes only, cast both ways, and answers it as stored', async () => {
    const created = await Product.create(db, { name: 'Lamp', price: 12.5, active: false, tags: ['home', 'light'], secret: 'x' } as ProductAttributes)
    expect(created).toMatchObject({ id: 1, name: 'Lamp', price: 12.5, active: false, tags: ['home', 'light'], note: null, secret: null })
    expect(created.created_at).toMatch(/^\d{4}-\d\d-\d\dT/)
    const raw = await db.first('select active, tags from products where id = 1')
    expect(raw).toEqual({ active: 0, tags: '["home","light"]' })
    expect(await Product.find(db, 1)).toEqual(created)
    expect(await Product.find(db, 99)).toBeUndefined()
  })

  it('findOrFail answers a 404 HttpError named after the model', async () => {
    const error = await Product.findOrFail(db, 7).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(HttpError)
    expect(error).toMatchObject({ status: 404, message: 'Product not found' })
  })

  it('updates the given fillable attributes and updated_at; an absent row is undefined', async () => {
    const created = await Product.create(db, { name: 'Lamp', price: 10 })
    await db.execute("update products set updated_at = '2000-01-01T00:00:00.000Z'")
    const updated = await Product.update(db, created.id, { price: 11, active: false })
    expect(updated).toMatchObject({ name: 'Lamp', price: 11, active: false })
    expect(updated!.updated_at > '2000-01-01T00:00:00.000Z').toBe(true)
    expect(await Product.update(db, 42, { price: 1 })).toBeUndefined()
  })

  it('deletes a row and answers it; deleting it again is undefined', async () => {
    const created = await Product.create(db, { name: 'Lamp', price: 10 })
    expect(await Product.delete(db, created.id)).toEqual(created)
    expect(await Product.delete(db, created.id)).toBeUndefined()
    expect(await Product.count(db)).toBe(0)
  })

  it('lists with equality filters, a search over columns, a sort (ties by id), and pages with meta', async () => {
    for (const [name, price, active] of [['Desk lamp', 30, true], ['Chair', 45, true], ['Lamp shade', 8, false], ['Table', 45, true], ['100%_cotton', 5, true]] as const) {
      await Product.create(db, { name, price, active })
    }
    expect((await Product.all(db, { where: { active: false } })).map((p) => p.name)).toEqual(['Lamp shade'])
    expect((await Product.all(db, { search: { term: 'LAMP', columns: ['name', 'note'] } })).map((p) => p.name)).toEqual(['Desk lamp', 'Lamp shade'])
    // % and _ are searched as themselves, not as wildcards.
    expect((await Product.all(db, { search: { term: '0%_c', columns: ['name'] } })).map((p) => p.name)).toEqual(['100%_cotton'])
    expect((await Product.all(db, { search: { term: '%', columns: ['name'] } })).map((p) => p.name)).toEqual(['100%_cotton'])
    expect((await Product.all(db, { sort: '-price' })).map((p) => p.name)).toEqual(['Table', 'Chair', 'Desk lamp', 'Lamp shade', '100%_cotton'])
    expect((await Product.all(db, { sort: 'price' })).map((p) => p.name)).toEqual(['100%_cotton', 'Lamp shade', 'Desk lamp', 'Chair', 'Table'])

    const page = await Product.paginate(db, { page: 2, perPage: 2, sort: 'id' })
    expect(page.meta).toEqual({ page: 2, per_page: 2, total: 5, last_page: 3 })
    expect(page.data.map((p) => p.id)).toEqual([3, 4])
    expect(await Product.paginate(db, { page: 9, perPage: 2 })).toMatchObject({ data: [], meta: { total: 5, last_page: 3 } })
    expect(await Product.paginate(db, { page: 1, perPage: 2, where: { name: 'nothing' } })).toEqual({ data: [], meta: { page: 1, per_page: 2, total: 0, last_page: 1 } })
  })

  it('never writes a column name it was not given in its definition into SQL', async () => {
    await expect(Product.all(db, { sort: 'secret' as 'name' })).rejects.toThrow(/"secret" is not a column/)
    await expect(Product.all(db, { where: { 'name = name or 1': 1 } as never })).rejects.toThrow(/is not a column/)
    await expect(Product.all(db, { search: { term: 'x', columns: ['price"; drop table products; --' as 'name'] } })).rejects.toThrow(/is not a column/)
    expect(await Product.count(db)).toBe(0)
  })

  it('tells observers of every create, update and delete, in order, with the database handle; unobserve stops it', async () => {
    const seen: string[] = []
    const observer: ModelObserver<Product> = {
      created: async (product, handle) => {
        expect(handle).toBe(db)
        seen.push(`created ${product.name}`)
      },
      updated: (product) => void seen.push(`updated ${product.price}`),
      deleted: (product) => void seen.push(`deleted ${product.id}`),
    }
    const stop = Product.observe(observer)
    const created = await Product.create(db, { name: 'Lamp', price: 10 })
    await Product.update(db, created.id, { price: 12 })
    await Product.update(db, 999, { price: 1 })
    await Product.delete(db, created.id)
    await Product.delete(db, created.id)
    stop()
    await Product.create(db, { name: 'Unseen', price: 1 })
    expect(seen).toEqual(['created Lamp', 'updated 12', `deleted ${created.id}`])
  })

  it('a created observer that throws outside a transaction takes the row back: the create stored nothing, and a retry stores one', async () => {
    let fail = true
    const stop = Product.observe({
      created: () => {
        if (fail) throw new Error('audit failed')
      },
    })
    try {
      await expect(Product.create(db, { name: 'Lamp', price: 10 })).rejects.toThrow('audit failed')
      expect(await Product.count(db)).toBe(0)
      fail = false
      await Product.create(db, { name: 'Lamp', price: 10 })
      expect((await Product.all(db)).map((product) => product.name)).toEqual(['Lamp'])
    } finally {
      stop()
    }
  })

  it('a created observer that throws when the row cannot be taken back either: a 500 that says the row exists', async () => {
    const stop = Product.observe({
      created: async (product, handle) => {
        // The table gone: the observer's own write fails, and so does the delete that would undo the create.
        await handle.execute('alter table products rename to products_kept')
        throw new Error(`audit of ${product.id} failed`)
      },
    })
    try {
      const refused = await Product.create(db, { name: 'Lamp', price: 10 }).catch((error: unknown) => error)
      expect(refused).toBeInstanceOf(HttpError)
      expect(refused).toMatchObject({ status: 500, message: 'Product 1 was created, but an observer of it failed: do not create it again' })
      expect((refused as HttpError).cause).toMatchObject({ message: 'audit of 1 failed' })
      expect(await db.all('select id from products_kept')).toEqual([{ id: 1 }])
    } finally {
      stop()
      await db.execute('drop table if exists products_kept')
    }
  })

  it('an observer that throws inside a transaction rolls the write back', async () => {
    const stop = Product.observe({ created: () => { throw new Error('audit failed') } })
    try {
      await expect(db.transaction((tx) => Product.create(tx, { name: 'Lamp', price: 10 }))).rejects.toThrow('audit failed')
      expect(await Product.count(db)).toBe(0)
    } finally {
      stop()
    }
  })
})

describe('a write refused by a constraint of the table', () => {
  interface Review {
    id: number
    product_id: number
    author: string
    created_at: string
    updated_at: string
  }
  const Review = defineModel<Review, { product_id: number; author: string }>({ name: 'Review', table: 'reviews', fillable: ['product_id', 'author'] })

  afterEach(() => db.execute('drop table reviews'))
  beforeEach(async () => {
    await db.execute('create unique index products_name_unique on products (name)')
    await db.execute(`create table reviews (
      id integer primary key autoincrement, product_id integer not null references products (id), author text not null,
      created_at text not null default (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
      updated_at text not null default (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
      unique (product_id, author))`)
  })

  it('a duplicate of a unique column is a 422 naming the field, on create and update, and nothing is written', async () => {
    await Product.create(db, { name: 'Lamp', price: 10 })
    const chair = await Product.create(db, { name: 'Chair', price: 20 })
    const created = await Product.create(db, { name: 'Lamp', price: 99 }).catch((caught: unknown) => caught)
    expect(created).toBeInstanceOf(ValidationError)
    expect(created).toMatchObject({ status: 422, errors: { name: ['The name has already been taken.'] } })
    expect((created as Error).cause).toBeInstanceOf(Error)
    const updated = await Product.update(db, chair.id, { name: 'Lamp' }).catch((caught: unknown) => caught)
    expect(updated).toMatchObject({ status: 422, errors: { name: ['The name has already been taken.'] } })
    expect((await Product.all(db)).map((p) => [p.name, p.price])).toEqual([['Lamp', 10], ['Chair', 20]])
  })

  it('a unique index over several columns names each of them', async () => {
    const lamp = await Product.create(db, { name: 'Lamp', price: 10 })
    await Review.create(db, { product_id: lamp.id, author: 'ann' })
    await expect(Review.create(db, { product_id: lamp.id, author: 'ann' })).rejects.toMatchObject({
      status: 422,
      errors: { product_id: ['The product id and author have already been taken.'], author: ['The product id and author have already been taken.'] },
    })
  })

  it('a foreign key naming no row, or a row still named by others, is a 409', async () => {
    // The message names the column and the value SQLite's error leaves out.
    await expect(Review.create(db, { product_id: 404, author: 'ann' })).rejects.toMatchObject({
      status: 409,
      message: 'Review refers to a row that does not exist: product_id 404 names no row of products',
    })
    const lamp = await Product.create(db, { name: 'Lamp', price: 10 })
    const review = await Review.create(db, { product_id: lamp.id, author: 'ann' })
    await expect(Review.update(db, review.id, { product_id: 405 })).rejects.toMatchObject({
      status: 409,
      message: 'Review refers to a row that does not exist: product_id 405 names no row of products',
    })
    await expect(Product.delete(db, lamp.id)).rejects.toMatchObject({ status: 409, message: 'Product is still referenced by other rows' })
    expect(await Product.count(db)).toBe(1)
  })

  it('reaches the client as the JSON error envelope, not a 500', async () => {
    const app = createApp({
      config: testConfig(),
      database: db,
      api: defineRoutes((r) => {
        r.post('/products', (c) => Product.create(c.db, { name: 'Lamp', price: 1 }))
      }),
    })
    const client = createTestClient(app)
    expect((await client.post('/api/products')).status).toBe(200)
    const duplicate = await client.post('/api/products')
    expect(duplicate.status).toBe(422)
    expect(duplicate.body).toEqual({ success: false, error: 'The given data was invalid.', code: 422, errors: { name: ['The name has already been taken.'] } })
  })
})

describe('defineFactory', () => {
  it('makes numbered attributes with overrides and stores them through the model', async () => {
    const factory = defineFactory(Product, (n) => ({ name: `Product ${n}`, price: n * 10 }))
    expect(factory.make()).toEqual({ name: 'Product 1', price: 10 })
    expect(factory.make({ price: 0 })).toEqual({ name: 'Product 2', price: 0 })
    const rows = await factory.createMany(db, 3, { active: false })
    expect(rows.map((row) => [row.name, row.price, row.active])).toEqual([
      ['Product 3', 30, false],
      ['Product 4', 40, false],
      ['Product 5', 50, false],
    ])
    expect(await Product.count(db, { where: { active: false } })).toBe(3)
  })

  it('goes on after the rows the table holds (its highest id, read at each create), so a second seeding, or another database, repeats no value', async () => {
    await db.execute('create unique index products_name_unique on products (name)')
    // A first process's seeding, then a row added by hand and one deleted.
    await defineFactory(Product, (n) => ({ name: `Product ${n}`, price: n })).createMany(db, 3)
    await Product.create(db, { name: 'By hand', price: 1 })
    await Product.delete(db, 2)
    // The same factory as a new process loads it: its sequence starts at 1, the table's rows say where to go on from.
    const again = defineFactory(Product, (n) => ({ name: `Product ${n}`, price: n }))
    expect((await again.createMany(db, 2)).map((row) => row.name)).toEqual(['Product 5', 'Product 6'])
    // make() stores nothing and reads nothing: it goes on from where create left the sequence.
    expect(again.make().name).toBe('Product 7')
    // Another database, with more rows (one factory object per process, as svc's userFactory): read at each create.
    const other = await openTestDatabase()
    try {
      await other.db.execute('create table products (id integer primary key autoincrement, name text not null unique, price real not null, active integer not null default 1, tags text, note text, created_at text, updated_at text)')
      for (let n = 1; n <= 9; n++) await Product.create(other.db, { name: `Product ${n}`, price: n })
      expect((await again.create(other.db)).name).toBe('Product 10')
    } finally {
      other.close()
    }
    // A table whose ids are not numbers: its row count.
    interface Tag {
      id: string
      label: string
    }
    const Tag = defineModel<Tag, { id: string; label: string }>({ name: 'Tag', table: 'tags', fillable: ['id', 'label'], timestamps: false })
    await db.execute('drop table if exists tags')
    await db.execute('create table tags (id text primary key, label text not null unique)')
    await Tag.create(db, { id: 'a', label: 'Tag 1' })
    const tags = defineFactory(Tag, (n) => ({ id: `t${n}`, label: `Tag ${n}` }))
    expect((await tags.create(db)).label).toBe('Tag 2')
    await db.execute('drop table tags')
  })

  it('gives a foreign key a real parent: a parent factory as the value stores one per row, unless the override names it', async () => {
    interface Review {
      id: number
      product_id: number
      body: string
    }
    const Review = defineModel<Review, { product_id: number; body: string }>({ name: 'Review', table: 'reviews', fillable: ['product_id', 'body'] })
    await db.execute('drop table if exists reviews')
    await db.execute('create table reviews (id integer primary key autoincrement, product_id integer not null references products (id), body text not null)')
    const products = defineFactory(Product, (n) => ({ name: `Product ${n}`, price: n }))
    const reviews = defineFactory(Review, (n) => ({ product_id: products, body: `Review ${n}` }))
    const made = await reviews.createMany(db, 2)
    expect(made.map((row) => row.product_id)).toEqual([1, 2])
    expect((await Product.all(db)).map((row) => row.name)).toEqual(['Product 1', 'Product 2'])
    // An existing parent: no new product.
    expect((await reviews.create(db, { product_id: 1 })).product_id).toBe(1)
    expect(await Product.count(db)).toBe(2)
    // make() stores nothing, so it has no id to give: it says so instead of answering the factory object.
    expect(() => reviews.make()).toThrow('Review factory: make() cannot fill product_id, which comes from the Product factory')
    expect(reviews.make({ product_id: 2 })).toMatchObject({ product_id: 2 })
    await db.execute('drop table reviews')
  })
})
