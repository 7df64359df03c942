/**
 * Sample rows for a model, for seeders and tests: a function of the row's
 * sequence number (1, 2, 3...) gives its attributes; `create` stores them
 * through the model (so observers see them as any other create).
 *
 * @example
 * export const productFactory = defineFactory(Product, (n) => ({ name: `Product ${n}`, price: n * 10 }))
 * await productFactory.createMany(db, 20)
 * const input = productFactory.make({ price: 0 })
 */
import type { Database } from '../database/database.ts'
import type { Model } from './define-model.ts'

export interface Factory<Row extends { id: unknown }, Attributes> {
  readonly model: Model<Row, Attributes>
  /** The next row's attributes, with `overrides` on top; nothing is stored. */
  make(overrides?: Partial<Attributes>): Attributes
  makeMany(count: number, overrides?: Partial<Attributes>): Attributes[]
  create(db: Database, overrides?: Partial<Attributes>): Promise<Row>
  /** Stores `count` rows, one after another, and answers them in that order. */
  createMany(db: Database, count: number, overrides?: Partial<Attributes>): Promise<Row[]>
}

/**
 * The keys of `Made` that `Attributes` does not have, each typed `never`: a
 * factory still naming a column the model no longer has is a type error
 * (plain assignability would let the extra key through).
 */
export type NoExtraColumns<Made, Attributes> = Made & { [Key in Exclude<keyof Made, keyof Attributes>]: never }

export function defineFactory<Row extends { id: unknown }, Attributes, Made extends NoInfer<Attributes>>(
  model: Model<Row, Attributes>,
  attributes: (sequence: number) => NoExtraColumns<Made, NoInfer<Attributes>>,
): Factory<Row, Attributes> {
  let sequence = 0
  const factory: Factory<Row, Attributes> = {
    model,
    make: (overrides = {}) => ({ ...attributes(++sequence), ...overrides }),
    makeMany: (count, overrides) => Array.from({ length: count }, () => factory.make(overrides)),
    create: (db, overrides) => model.create(db, factory.make(overrides)),
    async createMany(db, count, overrides) {
      const rows: Row[] = []
      for (const input of factory.makeMany(count, overrides)) rows.push(await model.create(db, input))
      return rows
    },
  }
  return factory
}
