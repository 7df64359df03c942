/** The analysis shared by api:why and debug:last (why), and its human view. */
import type { TraceRecord } from '../../framework/trace/index.ts'
import type { FailureJson, WhyJson } from '../contract/traces.ts'
import type { AppConfig } from '../../framework/index.ts'
import type { CommandIO } from '../output/io.ts'
import { colors, printLine } from '../output/print.ts'
import { databaseWhere, loadConfig, openProjectDatabase } from '../project/load-app.ts'
import { explainMissingTable, missingTableIn } from '../project/missing-table.ts'
import type { Project } from '../project/project.ts'
import { diffText, printReplay, runReplay, type ReplayOptions } from './run-replay.ts'
import { readReplayKey } from './replay-marker.ts'
import { formatMs, statusColor, summaryOfRecord } from './summary.ts'
import { explainFailure, explainRouting } from './why.ts'

export interface WhyOptions extends ReplayOptions {
  /** Replay the trace against the current code (implied by diff, force, edit). */
  fix?: boolean
}

export async function analyse(project: Project, method: string, path: string, record: TraceRecord | undefined, options: WhyOptions): Promise<WhyJson> {
  const routing = await explainRouting(project, method, path)
  const config = loadConfig(project)
  const json: WhyJson = {
    request: { method: method.toUpperCase(), path },
    routing,
    trace: record === undefined ? null : summaryOfRecord(record, readReplayKey(project)),
    failure: record === undefined ? null : explainFailure(record, routing, config.jwtTtl),
    replay: null,
    failed_replay: null,
  }
  if (json.failure !== null) await explainTableInFailure(project, config, json.failure)
  if (record !== undefined && (options.fix || options.diff || options.force || options.edit || options.test || options.format !== undefined)) {
    json.replay = await runReplay(project, record, { ...options, diff: true })
  }
  return json
}

/**
 * A failure on a missing table (`no such table: users`): why, as the server's
 * 500 says it now (migrations not run on the database, or none creating it).
 * The trace keeps the driver's words; the reason is the database's state now.
 */
async function explainTableInFailure(project: Project, config: AppConfig, failure: FailureJson): Promise<void> {
  const table = missingTableIn(failure.message)
  if (table === undefined) return
  try {
    const database = await openProjectDatabase(project, config)
    try {
      failure.explanation += ` Now: ${await explainMissingTable(project, database, databaseWhere(project, config), table)}.`
    } finally {
      database.close()
    }
  } catch {
    // A database that cannot be opened leaves the explanation as the trace gives it.
  }
}

export function printWhy(io: CommandIO, json: WhyJson, as?: string): void {
  const color = colors(io)
  const { routing } = json
  printLine(io, color.bold(`${json.request.method} ${json.request.path}`))
  printLine(io)
  printLine(io, color.bold('Routing'))
  switch (routing.outcome) {
    case 'matched': {
      const m = routing.matched!
      const params = Object.entries(m.params).map(([k, v]) => `${k}=${v}`).join(', ')
      const source = m.source ? color.dim(` (${m.source.file}:${m.source.line})`) : ''
      printLine(io, `  matches ${color.green(`${m.method} ${m.path}`)}${params ? ` with ${params}` : ''} => ${m.handler}${source}`)
      printLine(io, `  middleware: ${m.middleware.join(', ') || '(none)'}`)
      break
    }
    case 'method_not_allowed':
      printLine(io, `  ${color.yellow('405')}: the path exists for ${routing.allowed.join(', ')} only`)
      break
    case 'options':
      printLine(io, `  OPTIONS is answered automatically (204, Allow: ${routing.allowed.join(', ')})`)
      break
    case 'fallback':
      printLine(io, `  no route matches: the fallback of routes/${routing.fallback}.ts answers`)
      break
    case 'bad_request':
      printLine(io, `  ${color.yellow('400')}: ${routing.error}`)
      break
    case 'not_found':
      printLine(io, `  ${color.yellow('404')}: no route matches and there is no fallback`)
      break
  }
  if (routing.candidates.length > 0) {
    printLine(io, '  routes that did not match:')
    for (const candidate of routing.candidates) printLine(io, `    ${candidate.method} ${candidate.path}  ${color.dim(`${candidate.reason}: ${candidate.detail}`)}`)
  }
  printLine(io)
  if (json.trace === null) {
    printLine(io, color.dim('No trace of this request (send it once, or pass --id).'))
  } else {
    const t = json.trace
    printLine(io, color.bold('Trace'))
    printLine(io, `  ${t.trace_id}  ${t.timestamp}  ${statusColor(t.status_code, color)(String(t.status_code))}  ${formatMs(t.duration_ms)}`)
    if (t.replay_of !== null) printLine(io, color.dim(`  a replay of ${t.replay_of} (svc replay sent it)`))
    if (json.failure === null) printLine(io, color.green('  succeeded'))
    else {
      const f = json.failure
      printLine(io, `  ${color.red(f.kind)} (${f.status} ${f.message})${f.middleware ? ` refused by middleware ${color.bold(f.middleware)}` : ''}`)
      printLine(io, `  ${f.explanation}`)
    }
    if (json.failed_replay !== null) {
      const r = json.failed_replay
      printLine(io, color.dim(`  replayed since: ${r.trace_id} (${r.timestamp}) failed too, ${r.status_code}; svc fix ${t.trace_id} replays it against the current code`))
    }
  }
  if (json.replay !== null) {
    printLine(io)
    printLine(io, color.bold('Replay against the current code'))
    printReplay(io, { ...json.replay }, { diff: true, as })
    if (json.replay.diff === null && json.replay.response === null) printLine(io, diffText({ changed: false, status: null, headers: [], body: [] }, color))
  }
}
