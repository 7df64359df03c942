import type { TraceRecord, TraceStore } from '../../../framework/trace/index.ts'
import { defineCommand } from '../../command/define.ts'
import type { DbWhyJson } from '../../contract/traces.ts'
import { findTable } from '../../database/inspect.ts'
import { knownColumn, knownTable } from '../../database/known-table.ts'
import { missingDatabaseFile, withExistingDatabase } from '../../database/open.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { CliError } from '../../output/cli-error.ts'
import { colors, printLine, type Colors } from '../../output/print.ts'
import { projectFor, type Project } from '../../project/project.ts'
import { openTraceStoreToRead } from '../../trace/open-store.ts'
import { rowStatements, statementKind } from '../../trace/row-statements.ts'
import { formatMs } from '../../trace/summary.ts'

const DEFAULT_LIMIT = 5000

export default defineCommand({
  meta: { name: 'db:why', group: 'Database', description: 'The recorded statements that touched a row, newest first', json: ['DbWhyJson'] },
  args: {
    table: { type: 'positional', description: 'Table name', valueHint: 'table' },
    id: { type: 'positional', description: 'Primary key value of the row', valueHint: 'id' },
    ...cwdArg,
    ...jsonArg,
    key: { type: 'string', description: 'Key column', default: 'id', valueHint: 'column' },
    limit: { type: 'number', description: 'Look through the newest N traces that ran a statement on the table', valueHint: 'n', integer: true, min: 1, default: DEFAULT_LIMIT },
  },
  async run({ args, io, json: print }) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(args.table) || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(args.key)) {
      throw new CliError('E_BAD_ARGUMENTS', 'The table and --key must be plain SQL identifiers')
    }
    const project = projectFor(io, args.cwd)
    const store = await openTraceStoreToRead(io, project)
    let json: DbWhyJson
    try {
      const { records, limitReached } = await tracesOnTable(store, args.table, args.limit)
      json = {
        table: args.table,
        id: args.id,
        statements: rowStatements(records, args.table, args.id, args.key),
        traces_searched: records.length,
        limit_reached: limitReached,
      }
    } finally {
      store.close()
    }
    if (json.statements.length === 0) await refuseUnknownNames(project, args.table, args.key, json.traces_searched > 0)
    if (args.json) return print(json)
    const color = colors(io)
    const row = `${args.table} ${args.key}=${args.id}`
    // Said whether or not something was found: older statements may be left out either way.
    const further = json.limit_reached
      ? `searched only the newest ${json.traces_searched} traces that ran a statement on ${args.table}; older ones were not read (a larger --limit, such as --limit ${args.limit * 10}, searches further)`
      : null
    if (json.statements.length === 0) {
      printLine(io, further === null ? `No recorded statement touched ${row} (within the kept traces).` : `No recorded statement touched ${row}: ${further}.`)
      return
    }
    printLine(io, color.bold(`${row}: ${json.statements.length} statement(s), newest first`))
    for (const s of json.statements) {
      printLine(io, `  ${color.dim(s.timestamp.replace('T', ' ').slice(0, 19))}  ${kindColor(s.kind, color)(s.kind.padEnd(6))}  ${s.method} ${s.path}  ${color.dim(s.trace_id)}`)
      printLine(io, `      ${s.sql.replace(/\s+/g, ' ')}  ${color.dim(JSON.stringify(s.args))}  ${color.dim(formatMs(s.duration_ms))}`)
    }
    if (further !== null) printLine(io, color.yellow(`\nThe search stopped: it ${further}.`))
  },
})

/**
 * Nothing found: a table or --key column the database does not have is a typo, said as one (E_NO_TABLE,
 * E_NO_COLUMN) rather than "No recorded statement touched". A table some trace touched is answered even when
 * it has been dropped since (the traces are what is read), and then no database is needed to say nothing matched.
 */
async function refuseUnknownNames(project: Project, table: string, key: string, touched: boolean): Promise<void> {
  if (touched && missingDatabaseFile(project) !== undefined) return
  await withExistingDatabase(project, async (db) => {
    if (touched && (await findTable(db, table)) === undefined) return
    await knownColumn(db, await knownTable(db, table), key)
  })
}

/**
 * The newest `limit` traces that ran a statement on the table (newest first),
 * and whether older ones were left unread. Only batches whose text mentions
 * the table are decoded; of their records, only those that ran a statement on
 * it count towards the limit.
 */
async function tracesOnTable(store: TraceStore, table: string, limit: number): Promise<{ records: TraceRecord[]; limitReached: boolean }> {
  const records: TraceRecord[] = []
  for await (const record of store.newest({ where: { sql: 'instr(lower(data), lower(?)) > 0', args: [table] } })) {
    if (!record.queries.some((query) => statementKind(query.sql, table) !== undefined)) continue
    if (records.length === limit) return { records, limitReached: true }
    records.push(record)
  }
  return { records, limitReached: false }
}

function kindColor(kind: string, color: Colors): (text: string) => string {
  return kind === 'delete' ? color.red : kind === 'insert' ? color.green : kind === 'update' ? color.yellow : color.cyan
}
