import { defineCommand } from 'citty'
import type { TraceListJson } from '../../contract/traces.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { color, printJson, printLine, table } from '../../output/print.ts'
import { findProject } from '../../project/project.ts'
import { loadConfig } from '../../project/load-app.ts'
import { parseFilters, traceFilterArgs, type FilterArgs } from '../../trace/filters.ts'
import { openProjectTraceStore, projectTraceConfig } from '../../trace/open-store.ts'
import { SUMMARY_HEADERS, summaryLine, summaryOfRow } from '../../trace/summary.ts'

/** The search shared by trace:list and log:trace without an id. */
export async function searchTraces(args: FilterArgs & { cwd?: string }): Promise<TraceListJson> {
  const project = findProject(args.cwd)
  const config = loadConfig(project)
  const { filter, echo } = parseFilters(args, projectTraceConfig(project, config).slowMs)
  const store = await openProjectTraceStore(project, config)
  try {
    const rows = await store.search(filter)
    return { filters: echo, traces: rows.map(summaryOfRow) }
  } finally {
    store.close()
  }
}

export function printTraceList(list: TraceListJson): void {
  if (list.traces.length === 0) return printLine('No traces match.')
  printLine(table(list.traces.map(summaryLine), SUMMARY_HEADERS))
  printLine(color.dim(`\n${list.traces.length} trace${list.traces.length === 1 ? '' : 's'} (newest first; svc log:trace <id> shows one)`))
}

export default defineCommand({
  args: { ...cwdArg, ...jsonArg, ...traceFilterArgs },
  async run({ args }) {
    const list = await searchTraces(args as FilterArgs & { cwd?: string })
    if (args.json) return printJson(list)
    printTraceList(list)
  },
})
