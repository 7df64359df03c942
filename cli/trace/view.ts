/** The human view of one trace (`svc log:trace <id>`). */
import type { CapturedBody, TraceRecord } from '../../framework/trace/index.ts'
import type { Colors } from '../output/print.ts'
import { isLossyText } from './lossy-body.ts'
import { positionText } from './positions-as-written.ts'
import { formatMs, statusColor } from './summary.ts'

const BAR_WIDTH = 30

export function traceView(record: TraceRecord, color: Colors): string {
  const lines: string[] = []
  const status = statusColor(record.status_code, color)
  const url = record.query === '' ? record.path : `${record.path}?${record.query}`
  lines.push(`${color.bold(`${record.method} ${url}`)}  ${status(String(record.status_code))}  ${formatMs(record.duration_ms)}`)
  lines.push(
    color.dim(
      [
        record.trace_id,
        record.timestamp,
        `route ${record.route ?? '(none)'}`,
        `ip ${record.ip ?? '-'}`,
        `user ${record.user_id ?? '-'}`,
        record.memory_mb === null ? '' : `process RSS ${record.memory_mb} MB`,
      ]
        .filter(Boolean)
        .join('  '),
    ),
  )

  lines.push('', color.bold('Request headers'))
  for (const [name, value] of Object.entries(record.headers)) lines.push(`  ${name}: ${value}`)
  lines.push('', color.bold('Request body'), ...indent(bodyText(record.body)))

  const totalSql = record.queries.reduce((sum, query) => sum + query.duration_ms, 0)
  lines.push('', color.bold(`SQL (${record.queries.length} ${record.queries.length === 1 ? 'query' : 'queries'}, ${formatMs(totalSql)})`))
  if (record.queries.length === 0) lines.push('  (none)')
  record.queries.forEach((query, i) => {
    const args = query.args === null ? '' : `  ${color.dim(JSON.stringify(query.args))}`
    const rows = query.error === null ? color.dim(`${query.rows} row${query.rows === 1 ? '' : 's'}`) : color.red(`error: ${query.error}`)
    lines.push(`  ${String(i + 1).padStart(2)}. ${formatMs(query.duration_ms).padStart(9)}  ${query.sql.replace(/\s+/g, ' ')}${args}  ${rows}`)
  })

  lines.push('', color.bold('Middleware timeline'))
  if (record.middleware.length === 0) lines.push('  (none)')
  const total = Math.max(record.duration_ms, 0.001)
  for (const step of record.middleware) {
    const offset = Math.min(BAR_WIDTH - 1, Math.round((step.start_ms / total) * BAR_WIDTH))
    const width = Math.max(1, Math.min(BAR_WIDTH - offset, Math.round((step.duration_ms / total) * BAR_WIDTH)))
    const bar = ' '.repeat(offset) + '█'.repeat(width) + ' '.repeat(BAR_WIDTH - offset - width)
    const answered = step.called_next === false ? color.dim('  answered (did not call next())') : ''
    lines.push(`  +${formatMs(step.start_ms).padStart(9)}  ${color.cyan(bar)}  ${step.name} ${color.dim(formatMs(step.duration_ms))}${answered}`)
  }

  lines.push(...eventLines(record, color))

  if (record.exception !== null) {
    const where = record.exception.location ? ` at ${positionText(record.exception.location)}` : ''
    lines.push('', color.bold('Exception'), `  ${color.red(`${record.exception.class}: ${record.exception.message}`)} (${record.exception.status})${where}`)
    if (record.exception.errors) {
      for (const [field, messages] of Object.entries(record.exception.errors)) lines.push(`    ${field}: ${messages.join('; ')}`)
    }
  }
  if (record.trace !== null) {
    lines.push('', color.bold('Stack trace'), ...record.trace.map((line) => `  ${color.dim(line)}`))
  }

  lines.push('', color.bold('N+1 detection'))
  if (record.n_plus_one.length === 0) lines.push('  none')
  for (const finding of record.n_plus_one) {
    lines.push(`  ${color.yellow(`${finding.count}x`)} ${finding.shape}  ${color.dim(`total ${formatMs(finding.total_ms)}`)}`)
  }

  lines.push('', color.bold(`Response ${status(String(record.response.status))}`))
  for (const [name, value] of Object.entries(record.response.headers)) lines.push(`  ${name}: ${value}`)
  lines.push(...indent(bodyText(record.response.body)))
  lines.push('', `${color.bold('Total')} ${formatMs(record.duration_ms)}`)
  return lines.join('\n')
}

/** Each event the request emitted, its listeners under it: how long a plain one ran, a queued one handed off, a failure's message. */
function eventLines(record: TraceRecord, color: Colors): string[] {
  const events = record.events
  const omitted = record.events_omitted
  const count = events.length + omitted
  const lines = ['', color.bold(`Events (${count} ${count === 1 ? 'event' : 'events'})`)]
  // emit(event) without `c` records nothing: said here, where one looks for an event that did not show.
  if (count === 0) lines.push(`  (none)  ${color.dim('an event shows here when emitted with emit(event, c)')}`)
  for (const event of events) {
    lines.push(`  +${formatMs(event.start_ms).padStart(9)}  ${event.name} ${color.dim(formatMs(event.duration_ms))}`)
    if (event.listeners.length === 0) lines.push(`              ${color.dim('no listener')}`)
    for (const listener of event.listeners) {
      const how = listener.queued ? color.cyan('queued') : formatMs(listener.duration_ms ?? 0)
      const failed = listener.error === null ? '' : `  ${color.red(`failed: ${listener.error}`)}`
      lines.push(`              ${listener.name}  ${how}${failed}`)
    }
  }
  if (omitted > 0) lines.push(color.dim(`  … ${omitted} more not kept (a trace keeps the first ${events.length})`))
  return lines
}

export function bodyText(body: CapturedBody): string {
  if (body.content === null && body.size === 0 && body.incomplete !== true) return '(empty)'
  const text = body.content === null ? '(not kept)' : typeof body.content === 'string' ? body.content : JSON.stringify(body.content, null, 2)
  // The record keeps the start of a body and counts all of it, read after an early answer included.
  if (body.capped === true) return `${text}\n… [capped: svc stopped counting at 64 MiB; ${body.size} bytes read, the body was at least that]`
  if (body.incomplete === true) return `${text}\n… [incomplete: the body never ended; ${body.size} bytes came before the connection closed or the trace stopped reading; the start is kept above]`
  if (isLossyText(body)) {
    return `${text}\n… [not UTF-8: ${body.size} bytes of binary data or text in another encoding, shown decoded (each byte that is not UTF-8 as \uFFFD); the bytes sent were not kept]`
  }
  return body.truncated ? `${text}\n… [truncated: ${body.size} bytes in all; the start is kept above]` : text
}

function indent(text: string): string[] {
  return text.split('\n').map((line) => `  ${line}`)
}
