/**
 * db:why: the recorded statements that touched one row. A statement touches
 * row <id> of <table> when it is an insert into the table that created that
 * rowid (or names the key column with that value), or an update, delete or
 * select on the table whose where clause compares the key column with it.
 */
import type { TraceRecord, TraceQuery } from '../../framework/trace/index.ts'
import type { RowStatementJson, RowStatementKind } from '../contract/traces.ts'

const NAME = '["`\\[]?([A-Za-z_][A-Za-z0-9_]*)["`\\]]?'
const TARGET: Array<[RowStatementKind, RegExp]> = [
  ['insert', new RegExp(`^\\s*(?:insert|replace)(?:\\s+or\\s+\\w+)?\\s+into\\s+${NAME}`, 'i')],
  ['update', new RegExp(`^\\s*update(?:\\s+or\\s+\\w+)?\\s+${NAME}`, 'i')],
  ['delete', new RegExp(`^\\s*delete\\s+from\\s+${NAME}`, 'i')],
  ['select', new RegExp(`^\\s*(?:with\\b[\\s\\S]*?\\))?\\s*select\\b[\\s\\S]*?\\bfrom\\s+${NAME}`, 'i')],
]

const WRITE = /^\s*(?:with\b[\s\S]*?\)\s*)?(?:insert|replace|update|delete|create|drop|alter)\b/i

/** True when the request ran a statement that changed data (one that succeeded): replaying it changes them again. */
export function writesData(record: Pick<TraceRecord, 'queries'>): boolean {
  return record.queries.some((query) => query.error === null && WRITE.test(query.sql))
}

export function statementKind(sql: string, table: string): RowStatementKind | undefined {
  for (const [kind, pattern] of TARGET) {
    const match = pattern.exec(sql)
    if (match !== null) return match[1]!.toLowerCase() === table.toLowerCase() ? kind : undefined
  }
  return undefined
}

export function touchesRow(query: TraceQuery, table: string, id: string, key = 'id'): RowStatementKind | undefined {
  const kind = statementKind(query.sql, table)
  if (kind === undefined) return undefined
  if (kind === 'insert') {
    if (query.error === null && query.last_insert_rowid !== null && key === 'id' && String(query.last_insert_rowid) === id) return kind
    return insertNamesKey(query, key, id) ? kind : undefined
  }
  return whereComparesKey(query, key, id) ? kind : undefined
}

function argAt(args: TraceQuery['args'], index: number, name?: string): unknown {
  if (args === null) return undefined
  if (Array.isArray(args)) return args[index]
  if (name !== undefined) return args[name] ?? args[`:${name}`] ?? args[`@${name}`] ?? args[`$${name}`]
  return undefined
}

function same(value: unknown, id: string): boolean {
  return value !== undefined && value !== null && String(value) === id
}

/** `insert into t (id, ...) values (?, ...)` with that id. */
function insertNamesKey(query: TraceQuery, key: string, id: string): boolean {
  const match = /\(([^)]*)\)\s*values\s*\(([^)]*)\)/i.exec(query.sql)
  if (match === null) return false
  const columns = match[1]!.split(',').map((c) => c.trim().replace(/["`[\]]/g, '').toLowerCase())
  const position = columns.indexOf(key.toLowerCase())
  if (position === -1) return false
  const values = match[2]!.split(',').map((v) => v.trim())
  const value = values[position]
  if (value === undefined) return false
  if (value === '?') return same(argAt(query.args, placeholdersBefore(query.sql, match.index + match[0].indexOf(match[2]!)) + values.slice(0, position).filter((v) => v === '?').length), id)
  if (/^[:@$]\w+$/.test(value)) return same(argAt(query.args, -1, value.slice(1)), id)
  return value.replace(/^'|'$/g, '') === id
}

/** `where id = ?` / `where t.id = 5` / `where id in (?, ?)` comparing the key with the id. */
function whereComparesKey(query: TraceQuery, key: string, id: string): boolean {
  const where = /\bwhere\b/i.exec(query.sql)
  if (where === null) return false
  const column = new RegExp(`(?:\\b\\w+\\.)?["\`]?\\b${key}\\b["\`]?\\s*(=|\\bin\\b)\\s*(\\([^)]*\\)|\\?\\d*|[:@$]\\w+|'[^']*'|-?\\d+)`, 'gi')
  column.lastIndex = where.index
  for (let match = column.exec(query.sql); match !== null; match = column.exec(query.sql)) {
    const operand = match[2]!
    const operandStart = match.index + match[0].lastIndexOf(operand)
    const items = match[1]!.toLowerCase() === 'in' ? operand.replace(/^\(|\)$/g, '').split(',').map((v) => v.trim()) : [operand]
    let placeholder = placeholdersBefore(query.sql, operandStart)
    for (const item of items) {
      if (item.startsWith('?')) {
        const explicit = item.length > 1 ? Number(item.slice(1)) - 1 : placeholder
        if (same(argAt(query.args, explicit), id)) return true
        placeholder++
      } else if (/^[:@$]\w+$/.test(item)) {
        if (same(argAt(query.args, -1, item.slice(1)), id)) return true
      } else if (item.replace(/^'|'$/g, '') === id) return true
    }
  }
  return false
}

function placeholdersBefore(sql: string, end: number): number {
  let count = 0
  let quoted = false
  for (let i = 0; i < end; i++) {
    const char = sql[i]
    if (char === "'") quoted = !quoted
    else if (char === '?' && !quoted) count++
  }
  return count
}

export function rowStatements(records: readonly TraceRecord[], table: string, id: string, key = 'id'): RowStatementJson[] {
  const out: RowStatementJson[] = []
  const newestFirst = [...records].sort((a, b) => Date.parse(b.timestamp) - Date.parse(a.timestamp))
  for (const record of newestFirst) {
    for (const query of [...record.queries].reverse()) {
      const kind = touchesRow(query, table, id, key)
      if (kind === undefined) continue
      out.push({
        trace_id: record.trace_id,
        timestamp: record.timestamp,
        method: record.method,
        path: record.path,
        kind,
        sql: query.sql,
        args: query.args,
        duration_ms: query.duration_ms,
      })
    }
  }
  return out
}
