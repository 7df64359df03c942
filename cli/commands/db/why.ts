import { defineCommand } from 'citty'
import type { DbWhyJson } from '../../contract/traces.ts'
import { cwdArg, intOption, jsonArg } from '../../output/args.ts'
import { CliError } from '../../output/cli-error.ts'
import { color, printJson, printLine } from '../../output/print.ts'
import { findProject } from '../../project/project.ts'
import { openProjectTraceStore } from '../../trace/open-store.ts'
import { rowStatements } from '../../trace/row-statements.ts'
import { formatMs } from '../../trace/summary.ts'

export default defineCommand({
  args: {
    table: { type: 'positional', required: true, description: 'Table name' },
    id: { type: 'positional', required: true, description: 'Primary key value of the row' },
    ...cwdArg,
    ...jsonArg,
    key: { type: 'string', description: 'Key column (default id)', default: 'id', valueHint: 'column' },
    limit: { type: 'string', description: 'Look through at most N traces mentioning the table (default 5000)', valueHint: 'n' },
  },
  async run({ args }) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(args.table) || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(args.key)) {
      throw new CliError('E_BAD_ARGUMENTS', 'The table and --key must be plain SQL identifiers')
    }
    const store = await openProjectTraceStore(findProject(args.cwd))
    let json: DbWhyJson
    try {
      const records = await store.recordsMentioning(args.table, intOption('limit', args.limit, 5000, 1))
      json = { table: args.table, id: args.id, statements: rowStatements(records, args.table, args.id, args.key) }
    } finally {
      store.close()
    }
    if (args.json) return printJson(json)
    if (json.statements.length === 0) {
      return printLine(`No recorded statement touched ${args.table} ${args.key}=${args.id} (within the kept traces).`)
    }
    printLine(color.bold(`${args.table} ${args.key}=${args.id}: ${json.statements.length} statement(s), newest first`))
    for (const s of json.statements) {
      printLine(`  ${color.dim(s.timestamp.replace('T', ' ').slice(0, 19))}  ${kindColor(s.kind)(s.kind.padEnd(6))}  ${s.method} ${s.path}  ${color.dim(s.trace_id)}`)
      printLine(`      ${s.sql.replace(/\s+/g, ' ')}  ${color.dim(JSON.stringify(s.args))}  ${color.dim(formatMs(s.duration_ms))}`)
    }
  },
})

function kindColor(kind: string): (text: string) => string {
  return kind === 'delete' ? color.red : kind === 'insert' ? color.green : kind === 'update' ? color.yellow : color.cyan
}
