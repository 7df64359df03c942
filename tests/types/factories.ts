/**
 * Type-level tests of `defineFactory` (checked by typecheck.test.ts, never
 * run): a factory's attributes must be the model's, so a column removed from
 * the model makes a stale factory a type error instead of a failing insert.
 */
import { defineFactory, defineModel } from 'svc'

interface Product {
  id: number
  name: string
  price: number
  note: string | null
}

const Product = defineModel<Product>({ name: 'Product', table: 'products', fillable: ['name', 'price', 'note'] })

interface Tag {
  id: number
  label: string
}
const Tag = defineModel<Tag, { label: string }>({ name: 'Tag', table: 'tags', fillable: ['label'] })

// The model's columns, some or all: accepted.
export const products = defineFactory(Product, (n) => ({ name: `Product ${n}`, price: n * 10 }))
export const tags = defineFactory(Tag, (n) => ({ label: `tag ${n}` }))
// A body with statements, returning a literal: accepted too.
export const notes = defineFactory(Product, (n) => {
  const price = n * 2
  return { name: `Noted ${n}`, price, note: null }
})

// @ts-expect-error: `stock` is not a column of Product (removed, say)
export const stale = defineFactory(Product, (n) => ({ name: `Product ${n}`, stock: n }))

// @ts-expect-error: nor is `colour`, returned from a body
export const staleInBody = defineFactory(Product, (n) => {
  const name = `Product ${n}`
  return { name, colour: 'red' }
})

// @ts-expect-error: nor `stock` with explicit attributes
export const staleExplicit = defineFactory(Tag, (n) => ({ label: `tag ${n}`, stock: n }))

// @ts-expect-error: a required attribute is still required
export const missing = defineFactory(Tag, () => ({}))

// @ts-expect-error: an override names the model's columns only
products.make({ stock: 1 })

interface Review {
  id: number
  product_id: number
  tag_id: number | null
  body: string
}
const Review = defineModel<Review, { product_id: number; tag_id?: number | null; body: string }>({ name: 'Review', table: 'reviews', fillable: ['product_id', 'tag_id', 'body'] })

// A foreign key's attribute may be the parent's factory (its rows' ids are numbers), an optional one too.
export const reviews = defineFactory(Review, (n) => ({ product_id: products, tag_id: tags, body: `Review ${n}` }))

interface Slugged {
  id: string
}
const Slugged = defineModel<Slugged, { slug: string }>({ name: 'Slugged', table: 'slugged', fillable: ['slug'] })
const slugged = defineFactory(Slugged, (n) => ({ slug: `s${n}` }))

// @ts-expect-error: a factory whose ids are strings cannot fill a number column
export const wrongParent = defineFactory(Review, (n) => ({ product_id: slugged, body: `Review ${n}` }))

// @ts-expect-error: nor can any object
export const notAFactory = defineFactory(Review, (n) => ({ product_id: { id: 1 }, body: `Review ${n}` }))
