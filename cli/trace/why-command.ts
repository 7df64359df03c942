/** The analysis shared by api:why and debug:last (why), and its human view. */
import type { TraceRecord } from '../../framework/index.ts'
import type { WhyJson } from '../contract/traces.ts'
import { color, printLine } from '../output/print.ts'
import { loadConfig } from '../project/load-app.ts'
import type { Project } from '../project/project.ts'
import { diffText, printReplay, runReplay, type ReplayOptions } from './run-replay.ts'
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
    trace: record === undefined ? null : summaryOfRecord(record),
    failure: record === undefined ? null : explainFailure(record, routing, config.jwtTtl),
    replay: null,
  }
  if (record !== undefined && (options.fix || options.diff || options.force || options.edit || options.test || options.format !== undefined)) {
    json.replay = await runReplay(project, record, { ...options, diff: true })
  }
  return json
}

export function printWhy(json: WhyJson): void {
  const { routing } = json
  printLine(color.bold(`${json.request.method} ${json.request.path}`))
  printLine('')
  printLine(color.bold('Routing'))
  switch (routing.outcome) {
    case 'matched': {
      const m = routing.matched!
      const params = Object.entries(m.params).map(([k, v]) => `${k}=${v}`).join(', ')
      const source = m.source ? color.dim(` (${m.source.file}:${m.source.line})`) : ''
      printLine(`  matches ${color.green(`${m.method} ${m.path}`)}${params ? ` with ${params}` : ''} => ${m.handler}${source}`)
      printLine(`  middleware: ${m.middleware.join(', ') || '(none)'}`)
      break
    }
    case 'method_not_allowed':
      printLine(`  ${color.yellow('405')}: the path exists for ${routing.allowed.join(', ')} only`)
      break
    case 'options':
      printLine(`  OPTIONS is answered automatically (204, Allow: ${routing.allowed.join(', ')})`)
      break
    case 'fallback':
      printLine(`  no route matches: the fallback of routes/${routing.fallback}.ts answers`)
      break
    case 'bad_request':
      printLine(`  ${color.yellow('400')}: ${routing.error}`)
      break
    case 'not_found':
      printLine(`  ${color.yellow('404')}: no route matches and there is no fallback`)
      break
  }
  if (routing.candidates.length > 0) {
    printLine('  routes that did not match:')
    for (const candidate of routing.candidates) printLine(`    ${candidate.method} ${candidate.path}  ${color.dim(`${candidate.reason}: ${candidate.detail}`)}`)
  }
  printLine('')
  if (json.trace === null) {
    printLine(color.dim('No trace of this request (send it once, or pass --id).'))
  } else {
    const t = json.trace
    printLine(color.bold('Trace'))
    printLine(`  ${t.trace_id}  ${t.timestamp}  ${statusColor(t.status_code)(String(t.status_code))}  ${formatMs(t.duration_ms)}`)
    if (json.failure === null) printLine(color.green('  succeeded'))
    else {
      const f = json.failure
      printLine(`  ${color.red(f.kind)} (${f.status} ${f.message})${f.middleware ? ` refused by middleware ${color.bold(f.middleware)}` : ''}`)
      printLine(`  ${f.explanation}`)
    }
  }
  if (json.replay !== null) {
    printLine('')
    printLine(color.bold('Replay against the current code'))
    printReplay({ ...json.replay }, { diff: true })
    if (json.replay.diff === null && json.replay.response === null) printLine(diffText({ changed: false, status: null, headers: [], body: [] }))
  }
}
