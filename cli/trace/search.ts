/** The search shared by trace:list and log:trace without an id, and its human view. */
import type { TraceListJson } from '../contract/traces.ts'
import type { CommandIO } from '../output/io.ts'
import { colors, printLine, printNote, table } from '../output/print.ts'
import { loadConfig } from '../project/load-app.ts'
import type { Project } from '../project/project.ts'
import { parseFilters, unansweredMethods, ANSWERED_METHODS, type FilterArgs } from './filters.ts'
import { openTraceStoreToRead, projectTraceConfig } from './open-store.ts'
import { readReplayKey } from './replay-marker.ts'
import { SUMMARY_HEADERS, summaryLine, summaryOfRecord } from './summary.ts'

export async function searchTraces(io: CommandIO, project: Project, args: FilterArgs): Promise<TraceListJson> {
  const config = loadConfig(project)
  const { filter, echo } = parseFilters(args, projectTraceConfig(project, config).slowMs)
  const store = await openTraceStoreToRead(io, project, config)
  try {
    const records = await store.records(filter)
    const replayKey = readReplayKey(project)
    return { filters: echo, traces: records.map((record) => summaryOfRecord(record, replayKey)) }
  } finally {
    store.close()
  }
}

export function printTraceList(io: CommandIO, list: TraceListJson): void {
  if (list.traces.length === 0) {
    printLine(io, 'No traces match.')
    const unknown = unansweredMethods(list.filters.method)
    if (unknown.length > 0) {
      printNote(io, `No svc route answers ${unknown.join(', ')} (they answer ${ANSWERED_METHODS.join(', ')}): is it spelled as you meant?`)
    }
    return
  }
  const color = colors(io)
  printLine(io, table(list.traces.map((summary) => summaryLine(summary, color)), SUMMARY_HEADERS))
  printLine(io, color.dim(`\n${list.traces.length} trace${list.traces.length === 1 ? '' : 's'} (newest first; svc log:trace <id> shows one)`))
}
