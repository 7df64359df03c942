/**
 * Sample rows for a model, for seeders and tests: a function of the row's
 * sequence number (1, 2, 3...) gives its attributes; `create` stores them
 * through the model (so observers see them as any other create). The
 * sequence goes on after the rows the table holds (its highest id, read at
 * each `create`), so seeding twice does not make the same values again. A foreign key's attribute may be the parent's factory
 * (`project_id: projectFactory`):
 * `create` then stores a parent through it and writes its id, as Laravel's
 * `'project_id' => Project::factory()` does, so the row names a real one.
 *
 * @example
 * export const productFactory = defineFactory(Product, (n) => ({ name: `Product ${n}`, price: n * 10 }))
 * await productFactory.createMany(db, 20)
 * const input = productFactory.make({ price: 0 })
 * export const taskFactory = defineFactory(Task, (n) => ({ title: `Task ${n}`, project_id: projectFactory }))
 * await taskFactory.create(db, { project_id: project.id })   // an existing parent instead of a new one
 */
import type { Database } from '../database/database.ts'
import type { Model } from './define-model.ts'

export interface Factory<Row extends { id: unknown }, Attributes> {
  readonly model: Model<Row, Attributes>
  /** The next row's attributes, with `overrides` on top; nothing is stored. A parent's factory left in them is an error: it needs `create`. */
  make(overrides?: Partial<Attributes>): Attributes
  makeMany(count: number, overrides?: Partial<Attributes>): Attributes[]
  /** Stores the row; an attribute given as a parent's factory gets a parent stored first (one per row), unless `overrides` names it. */
  create(db: Database, overrides?: Partial<Attributes>): Promise<Row>
  /** Stores `count` rows, one after another, and answers them in that order. */
  createMany(db: Database, count: number, overrides?: Partial<Attributes>): Promise<Row[]>
}

/** What an attribute of type `Id` may be given as in a factory: a parent's factory, whose rows' ids are `Id`. */
export interface ParentFactory<Id> {
  readonly model: { readonly name: string; readonly table: string }
  create(db: Database): Promise<{ id: Id }>
}

/** A factory's attributes: each a value, or a parent's factory whose row's id is that value. */
export type FactoryAttributes<Attributes> = { [Key in keyof Attributes]: Attributes[Key] | ParentFactory<Attributes[Key]> }

/**
 * The keys of `Made` that `Attributes` does not have, each typed `never`: a
 * factory still naming a column the model no longer has is a type error
 * (plain assignability would let the extra key through).
 */
export type NoExtraColumns<Made, Attributes> = Made & { [Key in Exclude<keyof Made, keyof Attributes>]: never }

/** Every factory made here: how `create` tells a parent's factory from an attribute's value. */
const factories = new WeakSet<object>()

function isFactory(value: unknown): value is ParentFactory<unknown> {
  return typeof value === 'object' && value !== null && factories.has(value)
}

export function defineFactory<Row extends { id: unknown }, Attributes, Made extends NoInfer<FactoryAttributes<Attributes>>>(
  model: Model<Row, Attributes>,
  attributes: (sequence: number) => NoExtraColumns<Made, NoInfer<Attributes>>,
): Factory<Row, Attributes> {
  let sequence = 0
  const next = (overrides: Partial<Attributes> = {}): Record<string, unknown> => ({ ...attributes(++sequence), ...overrides })
  // Read at every create, not once: a second `db:seed`, rows added by hand, or another database than the one a
  // factory first wrote to (svc's userFactory is one object per process) would otherwise make `Product 1` again,
  // which a unique column refuses. One primary-key lookup per row.
  const resume = async (db: Database): Promise<void> => {
    sequence = Math.max(sequence, await lastRowNumber(db, model.table))
  }
  const factory: Factory<Row, Attributes> = {
    model,
    make(overrides) {
      const made = next(overrides)
      const parent = Object.entries(made).find(([, value]) => isFactory(value))
      if (parent !== undefined) {
        const [column, source] = parent as [string, ParentFactory<unknown>]
        // make() stores nothing, so it has no parent's id to give: a factory object in a request body would be sent as {}.
        throw new Error(
          `${model.name} factory: make() cannot fill ${column}, which comes from the ${source.model.name} factory (a row it stores): ` +
            `pass its id (make({ ${column}: ${column.replace(/_id$/, '') || 'parent'}.id })), or store the row with create(db)`,
        )
      }
      return made as Attributes
    },
    makeMany: (count, overrides) => Array.from({ length: count }, () => factory.make(overrides)),
    async create(db, overrides) {
      await resume(db)
      const made = next(overrides)
      for (const [column, value] of Object.entries(made)) if (isFactory(value)) made[column] = (await value.create(db)).id
      return model.create(db, made as Attributes)
    },
    async createMany(db, count, overrides) {
      const rows: Row[] = []
      for (let i = 0; i < count; i++) rows.push(await factory.create(db, overrides))
      return rows
    },
  }
  factories.add(factory)
  return factory
}

/**
 * Where a factory's sequence goes on from in a table that has rows: its highest id, since row `n` a factory stored
 * has an id of at least `n` (ids only grow), so no sample value made before repeats, even after deletes; the row
 * count for ids that are not numbers.
 */
async function lastRowNumber(db: Database, table: string): Promise<number> {
  const from = `from "${table.replaceAll('"', '""')}"`
  const highest = (await db.first<{ last: unknown }>(`select max("id") as last ${from}`))?.last
  const last = typeof highest === 'number' || typeof highest === 'bigint' ? Number(highest) : highest === null ? 0 : Number((await db.first<{ rows: unknown }>(`select count(*) as rows ${from}`))?.rows ?? 0)
  return Number.isSafeInteger(last) && last > 0 ? last : 0
}
