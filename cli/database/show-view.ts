/** The human views of `db:show`. */
import type { DbTableJson, DbTablesJson } from '../contract/index.ts'
import type { CommandIO } from '../output/io.ts'
import { colors, printLine, table } from '../output/print.ts'

export function printTables(io: CommandIO, tables: DbTablesJson['tables']): void {
  if (tables.length === 0) return printLine(io, 'No tables yet (svc migrate creates them).')
  const color = colors(io)
  printLine(io, table(tables.map((known) => [known.name, String(known.rows)]), ['TABLE', 'ROWS']))
  printLine(io, color.dim(`\n${tables.length} table${tables.length === 1 ? '' : 's'}; svc db:show <table> for one`))
}

export function printTable(io: CommandIO, described: DbTableJson): void {
  const color = colors(io)
  printLine(io, `${color.bold(described.table)}  ${color.dim(`${described.rows} row${described.rows === 1 ? '' : 's'}`)}`)
  printLine(io)
  printLine(
    io,
    table(
      described.columns.map((column) => [
        column.primary_key ? color.yellow(column.name) : column.name,
        column.type || color.dim('(none)'),
        column.nullable ? 'yes' : color.dim('no'),
        column.default ?? color.dim('-'),
        [column.primary_key ? 'primary key' : '', column.generated ? 'generated' : ''].filter(Boolean).join(', '),
      ]),
      ['COLUMN', 'TYPE', 'NULLABLE', 'DEFAULT', ''],
    ),
  )
  if (described.indexes.length > 0) {
    printLine(io, `\n${color.bold('Indexes')}`)
    for (const index of described.indexes) {
      const kind = index.origin === 'primary_key' ? 'primary key' : index.unique ? 'unique' : 'index'
      printLine(io, `  ${index.name}  ${kind} (${index.columns.join(', ')})${index.partial ? ' partial' : ''}`)
    }
  }
  if (described.foreign_keys.length > 0) {
    printLine(io, `\n${color.bold('Foreign keys')}`)
    for (const key of described.foreign_keys) {
      const actions = [key.on_delete !== 'NO ACTION' ? `on delete ${key.on_delete.toLowerCase()}` : '', key.on_update !== 'NO ACTION' ? `on update ${key.on_update.toLowerCase()}` : '']
      printLine(io, `  (${key.columns.join(', ')}) -> ${key.table}(${key.references.join(', ')})${actions.filter(Boolean).map((action) => `  ${action}`).join('')}`)
    }
  }
  printLine(io, color.dim('\nsvc db:show <table> --schema prints the CREATE statements'))
}
