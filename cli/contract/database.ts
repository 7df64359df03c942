/**
 * The database commands' documents: `db:show` (the tables, or one table),
 * `db:seed` and `user:role`. Types only; fields are only ever added.
 */

/** `db:show --json` without a table: every table with its row count. */
export interface DbTablesJson {
  tables: Array<{ name: string; rows: number }>
}

/** `db:show <table> --json`. */
export interface DbTableJson {
  /** The name as stored (SQLite matches names case-insensitively). */
  table: string
  columns: DbColumnJson[]
  indexes: DbIndexJson[]
  foreign_keys: DbForeignKeyJson[]
  /** The number of rows. */
  rows: number
  /** The CREATE statements: the table's, then its indexes' and triggers', each ending with `;`. */
  schema: string
}

export interface DbColumnJson {
  name: string
  /** The declared type, as written (`integer`, `text`, `VARCHAR(20)`); '' when none. */
  type: string
  nullable: boolean
  /** The default as SQL text (`'user'`, `0`, `strftime(...)`); null when none. */
  default: string | null
  primary_key: boolean
  /** A generated (computed) column. */
  generated: boolean
}

export interface DbIndexJson {
  name: string
  columns: string[]
  unique: boolean
  /** `index`: CREATE INDEX; `unique`: a UNIQUE constraint; `primary_key`: the PRIMARY KEY. */
  origin: 'index' | 'unique' | 'primary_key'
  /** Has a WHERE clause. */
  partial: boolean
}

export interface DbForeignKeyJson {
  columns: string[]
  /** The table referenced. */
  table: string
  /** Its columns, in the order of `columns`. */
  references: string[]
  on_update: string
  on_delete: string
}

/** What one seeder changed in one table: rows after minus rows before. */
export interface SeededRowsJson {
  seeder: string
  table: string
  added: number
}

/** `db:seed --json`. */
export interface DbSeedJson {
  /** The seeders that ran, in order (file names without extension). */
  seeded: string[]
  seeded_rows: SeededRowsJson[]
}

/** `user:role --json`. */
export interface UserRoleJson {
  email: string
  /** The role now. */
  role: string
  /** The role before; equal to `role` when only shown or unchanged. */
  previous_role: string
  changed: boolean
}
