import { defineCommand } from '../../command/define.ts'
import { describeTable, listTables } from '../../database/inspect.ts'
import { knownTable } from '../../database/known-table.ts'
import { withExistingDatabase } from '../../database/open.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { CliError } from '../../output/cli-error.ts'
import { printLine } from '../../output/print.ts'
import { projectFor } from '../../project/project.ts'
import { printTable, printTables } from '../../database/show-view.ts'

export default defineCommand({
  meta: { name: 'db:show', group: 'Database', description: "A table's columns, indexes, foreign keys and row count; without one, every table", json: ['DbTableJson', 'DbTablesJson'] },
  args: {
    table: { type: 'positional', description: 'Table name (omit it to list the tables)', required: false, valueHint: 'table' },
    ...cwdArg,
    ...jsonArg,
    schema: { type: 'boolean', description: 'Print the CREATE statements of the table and its indexes' },
  },
  async run({ args, io, json }) {
    const project = projectFor(io, args.cwd)
    await withExistingDatabase(project, async (db) => {
      if (args.table === undefined) {
        if (args.schema) throw new CliError('E_BAD_ARGUMENTS', '--schema shows one table: name it', { hint: 'svc db:show <table> --schema; svc db:show lists the tables' })
        const tables = await listTables(db)
        if (args.json) return json({ tables })
        return printTables(io, tables)
      }
      const table = await knownTable(db, args.table)
      const described = await describeTable(db, table)
      if (args.json) return json(described)
      if (args.schema) return printLine(io, described.schema)
      printTable(io, described)
    })
  },
})
