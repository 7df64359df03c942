import { defineCommand } from '../../command/define.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { CliError } from '../../output/cli-error.ts'
import { colors, printLine, type Colors } from '../../output/print.ts'
import { projectFor } from '../../project/project.ts'
import { openProjectTraceStore } from '../../trace/open-store.ts'
import { rowStatements } from '../../trace/row-statements.ts'
import { formatMs } from '../../trace/summary.ts'

export default defineCommand({
  meta: { name: 'db:why', group: 'Database', description: 'The recorded statements that touched a row, newest first', json: ['DbWhyJson'] },
  args: {
    table: { type: 'positional', description: 'Table name', valueHint: 'table' },
    id: { type: 'positional', description: 'Primary key value of the row', valueHint: 'id' },
    ...cwdArg,
    ...jsonArg,
    key: { type: 'string', description: 'Key column', default: 'id', valueHint: 'column' },
    limit: { type: 'number', description: 'Look through at most N traces mentioning the table', valueHint: 'n', integer: true, min: 1, default: 5000 },
  },
  async run({ args, io, json: print }) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(args.table) || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(args.key)) {
      throw new CliError('E_BAD_ARGUMENTS', 'The table and --key must be plain SQL identifiers')
    }
    const store = await openProjectTraceStore(projectFor(io, args.cwd))
    let json
    try {
      const records = await store.recordsMentioning(args.table, args.limit)
      json = { table: args.table, id: args.id, statements: rowStatements(records, args.table, args.id, args.key) }
    } finally {
      store.close()
    }
    if (args.json) return print(json)
    if (json.statements.length === 0) {
      return printLine(io, `No recorded statement touched ${args.table} ${args.key}=${args.id} (within the kept traces).`)
    }
    const color = colors(io)
    printLine(io, color.bold(`${args.table} ${args.key}=${args.id}: ${json.statements.length} statement(s), newest first`))
    for (const s of json.statements) {
      printLine(io, `  ${color.dim(s.timestamp.replace('T', ' ').slice(0, 19))}  ${kindColor(s.kind, color)(s.kind.padEnd(6))}  ${s.method} ${s.path}  ${color.dim(s.trace_id)}`)
      printLine(io, `      ${s.sql.replace(/\s+/g, ' ')}  ${color.dim(JSON.stringify(s.args))}  ${color.dim(formatMs(s.duration_ms))}`)
    }
  },
})

function kindColor(kind: string, color: Colors): (text: string) => string {
  return kind === 'delete' ? color.red : kind === 'insert' ? color.green : kind === 'update' ? color.yellow : color.cyan
}
