import { columnSql, sqlName, type Field } from '../fields.ts'
import { appPaths } from '../paths.ts'
import { defineTemplate, indent, type WithFields } from '../template.ts'

export interface MigrationOptions extends WithFields {
  /** `create_products_table` */
  migration: string
  /** `20260115103000`: the file's prefix, in the order migrations run. */
  timestamp: string
  /** `create`: a new table; `alter`: columns added to one; `blank`: up/down to fill in. */
  action: 'create' | 'alter' | 'blank'
  table: string | undefined
}

declare module '../template.ts' {
  interface TemplateOptions {
    migration: MigrationOptions
  }
}

const NOW = "(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))"

/** `database/migrations/<timestamp>_<name>.ts`: `up(db)` and `down(db)`. */
export default defineTemplate('migration', ({ options }) => {
  const { fields } = options
  // Quoted: a table or column may be an SQL keyword (values, order, group).
  const table = options.table === undefined ? undefined : sqlName(options.table)
  let up: string[]
  let down: string[]
  if (options.action === 'create') {
    const columns = [
      `${sqlName('id')} integer primary key autoincrement`,
      ...fields.map(columnSql),
      `${sqlName('created_at')} text not null default ${NOW}`,
      `${sqlName('updated_at')} text not null default ${NOW}`,
    ]
    up = ['await db.execute(`create table ' + table + ' (', ...columns.map((column, i) => `  ${column}${i < columns.length - 1 ? ',' : ''}`), ')`)', ...fields.flatMap((field) => foreignKeyIndex(options.table!, field))]
    down = [`await db.execute('drop table ${table}')`]
  } else if (options.action === 'alter' && fields.length > 0) {
    // SQLite adds a NOT NULL column only with a default: added columns may be null.
    up = fields.flatMap((field) => [`await db.execute('alter table ${table} add column ${columnSql({ ...field, optional: true })}')`, ...foreignKeyIndex(options.table!, field)])
    // SQLite drops an indexed column only once its index is gone.
    down = [...fields].reverse().flatMap((field) => [
      ...(field.type === 'references' ? [`await db.execute('drop index ${sqlName(indexName(options.table!, field))}')`] : []),
      `await db.execute('alter table ${table} drop column ${sqlName(field.name)}')`,
    ])
  } else {
    up = [table === undefined ? "// await db.execute('create table ...')" : `// await db.execute('alter table ${table} add column ...')`]
    down = ['// undo what up() did']
  }
  return {
    path: `${appPaths.migrations}/${options.timestamp}_${options.migration}.ts`,
    contents: `import type { Database } from 'svc'

export async function up(db: Database): Promise<void> {
${indent(up, 2)}
}

export async function down(db: Database): Promise<void> {
${indent(down, 2)}
}
`,
  }
})

function indexName(table: string, field: Field): string {
  return `${table}_${field.name}_index`
}

/** A foreign key's index: the parent's rows are looked up by it (a project's tasks), and SQLite does not make one. */
function foreignKeyIndex(table: string, field: Field): string[] {
  if (field.type !== 'references') return []
  return [`await db.execute('create index ${sqlName(indexName(table, field))} on ${sqlName(table)} (${sqlName(field.name)})')`]
}
