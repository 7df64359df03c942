/**
 * A small typed model over the `Database` interface: one table, the columns a
 * client may write (`fillable`), how columns are cast, and `find`, `all`,
 * `paginate`, `create`, `update`, `delete`, with observers told of every
 * create, update and delete. Every statement goes through the database handle
 * it is given, so a request's `c.db` traces it like any other query.
 *
 * @example
 * export interface Product { id: number; name: string; price: number; created_at: string; updated_at: string }
 * export interface ProductAttributes { name: string; price: number }
 * export const Product = defineModel<Product, ProductAttributes>({ name: 'Product', table: 'products', fillable: ['name', 'price'] })
 *
 * const product = await Product.create(c.db, { name: 'Lamp', price: 12.5 })
 * const page = await Product.paginate(c.db, { page: 1, perPage: 20, sort: '-price' })
 */
import type { InArgs } from '@libsql/client'
import type { Database } from '../database/database.ts'
import { HttpError } from '../http/http-error.ts'
import { castFromStorage, castToStorage, type Cast } from './casts.ts'
import { asConstraintError, missingReference } from './constraint-errors.ts'

/** A column of the row type, by name. */
export type ColumnOf<Row> = keyof Row & string

/** `name` sorts ascending, `-name` descending. */
export type SortKey<Row> = ColumnOf<Row> | `-${ColumnOf<Row>}`

export interface ModelDefinition<Row, Attributes> {
  /** What people call one row: `Product` ("Product not found"). */
  name: string
  table: string
  /** The columns `create` and `update` write; any other key of their input is ignored. */
  fillable: readonly ColumnOf<Attributes>[]
  /** Columns that are not plain text or numbers in SQLite: `{ active: 'boolean', tags: 'json' }`. */
  casts?: { readonly [K in ColumnOf<Row>]?: Cast }
  /**
   * Columns lists may filter, search and sort by, besides `id`, the fillable
   * ones, the cast ones and the timestamps. Column names are never taken from
   * anywhere else: they are written into the SQL, values never are.
   */
  columns?: readonly ColumnOf<Row>[]
  /** `update` sets `updated_at` (ISO 8601, UTC); default true. */
  timestamps?: boolean
}

export interface ListOptions<Row> {
  /** Equal values (`null`: is null). */
  where?: { readonly [K in ColumnOf<Row>]?: Row[K] | null }
  /** Rows where any of `columns` contains `term` (case-insensitive for ASCII, SQLite's `like`). */
  search?: { term: string; columns: readonly ColumnOf<Row>[] }
  /** Default `id`. */
  sort?: SortKey<Row>
  limit?: number
  offset?: number
}

export interface PageOptions<Row> extends Omit<ListOptions<Row>, 'limit' | 'offset'> {
  /** From 1. */
  page: number
  perPage: number
}

/** What a paginated list answers with, beside its rows (the names of the JSON envelope's `meta`). */
export interface PageMeta {
  page: number
  per_page: number
  total: number
  /** The number of the last page (0 when there are no rows). */
  last_page: number
}

export interface Page<Row> {
  data: Row[]
  meta: PageMeta
}

/** Told of each write after it happened, in the order observers were added; awaited. */
export interface ModelObserver<Row> {
  created?(record: Row, db: Database): void | Promise<void>
  updated?(record: Row, db: Database): void | Promise<void>
  deleted?(record: Row, db: Database): void | Promise<void>
}

export interface Model<Row extends { id: unknown }, Attributes> {
  readonly name: string
  readonly table: string
  readonly fillable: readonly ColumnOf<Attributes>[]
  find(db: Database, id: Row['id']): Promise<Row | undefined>
  /** The row, or an HttpError 404 (`Product not found`). */
  findOrFail(db: Database, id: Row['id']): Promise<Row>
  all(db: Database, options?: ListOptions<Row>): Promise<Row[]>
  paginate(db: Database, options: PageOptions<Row>): Promise<Page<Row>>
  count(db: Database, options?: Pick<ListOptions<Row>, 'where' | 'search'>): Promise<number>
  /** Inserts the fillable attributes and answers the stored row (defaults filled in). */
  create(db: Database, attributes: Attributes): Promise<Row>
  /** The updated row, or undefined when there is none with this id. */
  update(db: Database, id: Row['id'], attributes: Partial<Attributes>): Promise<Row | undefined>
  /** The deleted row, or undefined when there was none with this id. */
  delete(db: Database, id: Row['id']): Promise<Row | undefined>
  /** Adds an observer; the function returned removes it. */
  observe(observer: ModelObserver<Row>): () => void
}

const NOW = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"

export function defineModel<Row extends { id: unknown }, Attributes = Partial<Omit<Row, 'id'>>>(
  definition: ModelDefinition<Row, Attributes>,
): Model<Row, Attributes> {
  const { name, fillable } = definition
  const casts: Partial<Record<string, Cast>> = definition.casts ?? {}
  const timestamps = definition.timestamps ?? true
  const table = quote(definition.table)
  const known = new Set<string>(['id', ...fillable, ...Object.keys(casts), ...(definition.columns ?? []), ...(timestamps ? ['created_at', 'updated_at'] : [])])
  const observers: ModelObserver<Row>[] = []

  const column = (key: string): string => {
    if (!known.has(key)) throw new Error(`${name}: "${key}" is not a column lists may use (add it to the model's columns)`)
    return quote(key)
  }

  const hydrate = (row: Record<string, unknown>): Row => {
    const record: Record<string, unknown> = { ...row }
    for (const key in casts) if (key in record) record[key] = castFromStorage(casts[key]!, record[key])
    return record as Row
  }

  const conditions = (options: Pick<ListOptions<Row>, 'where' | 'search'> = {}): { sql: string; args: unknown[] } => {
    const clauses: string[] = []
    const args: unknown[] = []
    for (const [key, value] of Object.entries(options.where ?? {})) {
      if (value === undefined) continue
      if (value === null) clauses.push(`${column(key)} is null`)
      else {
        clauses.push(`${column(key)} = ?`)
        args.push(castToStorage(casts[key], value))
      }
    }
    const term = options.search?.term.trim()
    if (term && options.search!.columns.length > 0) {
      clauses.push(`(${options.search!.columns.map((key) => `${column(key)} like ? escape '\\'`).join(' or ')})`)
      const pattern = `%${term.replace(/[\\%_]/g, (char) => `\\${char}`)}%`
      for (const _ of options.search!.columns) args.push(pattern)
    }
    return { sql: clauses.length === 0 ? '' : ` where ${clauses.join(' and ')}`, args }
  }

  const order = (sort: string | undefined): string => {
    const key = sort ?? 'id'
    const descending = key.startsWith('-')
    const by = column(descending ? key.slice(1) : key)
    // Ties are broken by id, so that pages never repeat or skip a row.
    return ` order by ${by} ${descending ? 'desc' : 'asc'}${by === '"id"' ? '' : `, "id" ${descending ? 'desc' : 'asc'}`}`
  }

  const writable = (attributes: Partial<Attributes>): Array<[string, unknown]> =>
    fillable
      .filter((key) => (attributes as Record<string, unknown>)[key] !== undefined)
      .map((key) => [key, castToStorage(casts[key], (attributes as Record<string, unknown>)[key])])

  /**
   * A write refused by a unique index or a foreign key is the client's error
   * (422, 409), not a 500; a create or update naming no row says which column
   * (`values`: what it wrote), as SQLite's error does not.
   */
  const write = <T>(kind: 'create' | 'update' | 'delete', statement: Promise<T>, db: Database, values: Array<[string, unknown]> = []): Promise<T> =>
    statement.catch(async (error: unknown) => {
      const refused = asConstraintError(error, { name, table: definition.table }, kind)
      if (refused instanceof HttpError && refused.status === 409 && kind !== 'delete') {
        const missing = await missingReference(db, definition.table, values)
        if (missing !== undefined) throw new HttpError(409, `${name} refers to a row that does not exist: ${missing}`, { cause: error })
      }
      throw refused
    })

  const notify = async (event: keyof ModelObserver<Row>, record: Row, db: Database): Promise<void> => {
    for (const observer of [...observers]) await observer[event]?.(record, db)
  }

  /**
   * A `created` observer that throws takes the row back, then the error goes on: a create that fails stored
   * nothing, so a request answered 500 and retried stores one row, not two (outside a transaction the row stayed).
   * Should the delete fail too, a 500 that says the row exists (an HttpError's message reaches the client).
   */
  const notifyOrUndoCreate = async (record: Row, db: Database): Promise<void> => {
    try {
      await notify('created', record, db)
    } catch (error) {
      try {
        await db.execute(`delete from ${table} where "id" = ?`, [record.id] as InArgs)
      } catch {
        throw new HttpError(500, `${name} ${String(record.id)} was created, but an observer of it failed: do not create it again`, { cause: error })
      }
      throw error
    }
  }

  const model: Model<Row, Attributes> = {
    name,
    table: definition.table,
    fillable,

    async find(db, id) {
      const row = await db.first(`select * from ${table} where "id" = ?`, [id] as InArgs)
      return row === undefined ? undefined : hydrate(row)
    },

    async findOrFail(db, id) {
      const record = await model.find(db, id)
      if (record === undefined) throw new HttpError(404, `${name} not found`)
      return record
    },

    async all(db, options = {}) {
      const where = conditions(options)
      const limit = options.limit === undefined ? '' : ` limit ${Math.trunc(options.limit)} offset ${Math.trunc(options.offset ?? 0)}`
      const rows = await db.all(`select * from ${table}${where.sql}${order(options.sort)}${limit}`, where.args as InArgs)
      return rows.map(hydrate)
    },

    async count(db, options = {}) {
      const where = conditions(options)
      const row = await db.first<{ total: number }>(`select count(*) as total from ${table}${where.sql}`, where.args as InArgs)
      return Number(row?.total ?? 0)
    },

    async paginate(db, options) {
      const page = Math.max(1, Math.trunc(options.page))
      const perPage = Math.max(1, Math.trunc(options.perPage))
      const total = await model.count(db, options)
      const data = total === 0 ? [] : await model.all(db, { ...options, limit: perPage, offset: (page - 1) * perPage })
      // An empty list still has its first page (as Laravel's paginator says): a client looping to last_page asks for page 1.
      return { data, meta: { page, per_page: perPage, total, last_page: Math.max(1, Math.ceil(total / perPage)) } }
    },

    async create(db, attributes) {
      const values = writable(attributes)
      const sql =
        values.length === 0
          ? `insert into ${table} default values returning *`
          : `insert into ${table} (${values.map(([key]) => quote(key)).join(', ')}) values (${values.map(() => '?').join(', ')}) returning *`
      const record = hydrate((await write('create', db.first(sql, values.map(([, value]) => value) as InArgs), db, values))!)
      await notifyOrUndoCreate(record, db)
      return record
    },

    async update(db, id, attributes) {
      const values = writable(attributes)
      const sets = [...values.map(([key]) => `${quote(key)} = ?`), ...(timestamps ? [`"updated_at" = ${NOW}`] : [])]
      if (sets.length === 0) return model.find(db, id)
      const row = await write(
        'update',
        db.first(`update ${table} set ${sets.join(', ')} where "id" = ? returning *`, [...values.map(([, value]) => value), id] as InArgs),
        db,
        values,
      )
      if (row === undefined) return undefined
      const record = hydrate(row)
      await notify('updated', record, db)
      return record
    },

    async delete(db, id) {
      const row = await write('delete', db.first(`delete from ${table} where "id" = ? returning *`, [id] as InArgs), db)
      if (row === undefined) return undefined
      const record = hydrate(row)
      await notify('deleted', record, db)
      return record
    },

    observe(observer) {
      observers.push(observer)
      return () => {
        const at = observers.indexOf(observer)
        if (at !== -1) observers.splice(at, 1)
      }
    },
  }
  return model
}

function quote(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`
}
