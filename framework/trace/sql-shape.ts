/**
 * SQL shapes: a statement with its literals and parameters replaced by `?`,
 * so that `select * from posts where id = 1` and `... id = 2` are one shape.
 * A shape run N or more times in one request is an N+1 finding.
 */
import type { NPlusOneFinding, TraceQuery } from './record.ts'

const STRING_LITERAL = /'(?:[^']|'')*'/g
const NUMBER_LITERAL = /(?<![\w$.])-?\d+(?:\.\d+)?(?![\w$])/g
const NAMED_PARAM = /[:@$][A-Za-z_][A-Za-z0-9_]*|\?\d*/g
const LIST = /\(\s*\?(?:\s*,\s*\?)*\s*\)/g
const SPACE = /\s+/g

export function sqlShape(sql: string): string {
  return sql
    .replace(STRING_LITERAL, '?')
    .replace(NAMED_PARAM, '?')
    .replace(NUMBER_LITERAL, '?')
    .replace(SPACE, ' ')
    .replace(LIST, '(?)')
    .trim()
    .toLowerCase()
}

export function detectNPlusOne(queries: readonly (Pick<TraceQuery, 'sql' | 'duration_ms'> & Partial<Pick<TraceQuery, 'source'>>)[], threshold: number): NPlusOneFinding[] {
  if (queries.length < threshold) return []
  const shapes = new Map<string, { count: number; total: number; source: TraceQuery['source'] }>()
  for (const query of queries) {
    const shape = sqlShape(query.sql)
    const entry = shapes.get(shape)
    if (entry === undefined) shapes.set(shape, { count: 1, total: query.duration_ms, source: query.source ?? null })
    else {
      entry.count++
      entry.total += query.duration_ms
    }
  }
  const findings: NPlusOneFinding[] = []
  for (const [shape, { count, total, source }] of shapes) {
    if (count >= threshold) findings.push({ shape, count, total_ms: Math.round(total * 1000) / 1000, source })
  }
  return findings.sort((a, b) => b.count - a.count)
}
