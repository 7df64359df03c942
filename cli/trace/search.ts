/** The search shared by trace:list and log:trace without an id, and its human view. */
import { compileFilter, type TraceRecord, type TraceStore } from '../../framework/trace/index.ts'
import type { TraceListJson } from '../contract/traces.ts'
import type { CommandIO } from '../output/io.ts'
import { colors, printLine, table } from '../output/print.ts'
import { loadConfig } from '../project/load-app.ts'
import type { Project } from '../project/project.ts'
import { parseFilters, pathMatcher, type FilterArgs, type ListFilter } from './filters.ts'
import { openTraceStoreToRead, projectTraceConfig } from './open-store.ts'
import { SUMMARY_HEADERS, summaryLine, summaryOfRecord } from './summary.ts'

export async function searchTraces(io: CommandIO, project: Project, args: FilterArgs): Promise<TraceListJson> {
  const config = loadConfig(project)
  const { filter, echo } = parseFilters(args, projectTraceConfig(project, config).slowMs)
  const store = await openTraceStoreToRead(io, project, config)
  try {
    const records = await readTraces(store, filter)
    return { filters: echo, traces: records.map(summaryOfRecord) }
  } finally {
    store.close()
  }
}

/**
 * The traces a command's filters select, as the store's `records` reads them
 * (newest first, or `order`; `afterTraceId`; the limit counted last), but
 * with the paths matched by `--path` and left out by `--ignore` as
 * pathMatcher says (`*` one segment), not by the store's own glob.
 */
export async function readTraces(store: TraceStore, filter: ListFilter): Promise<TraceRecord[]> {
  const { path, ignore = [], limit = Number.POSITIVE_INFINITY, order, afterTraceId, ...rest } = filter
  const matches = compileFilter(rest)
  const wanted = path === undefined || path === '' ? () => true : pathMatcher(path)
  const ignored = ignore.map(pathMatcher)
  const ordered = order === 'oldest' || order === 'slowest'
  const out: TraceRecord[] = []
  if (limit <= 0) return out
  for await (const record of store.newest({ sinceMs: rest.sinceMs })) {
    if (afterTraceId !== undefined && record.trace_id === afterTraceId) break
    if (!matches(record) || !wanted(record.path) || ignored.some((test) => test(record.path))) continue
    out.push(record)
    if (!ordered && out.length >= limit) break
  }
  if (order === 'oldest') out.reverse()
  if (order === 'slowest') out.sort((a, b) => b.duration_ms - a.duration_ms)
  return ordered ? out.slice(0, limit) : out
}

export function printTraceList(io: CommandIO, list: TraceListJson): void {
  if (list.traces.length === 0) return printLine(io, 'No traces match.')
  const color = colors(io)
  printLine(io, table(list.traces.map((summary) => summaryLine(summary, color)), SUMMARY_HEADERS))
  printLine(io, color.dim(`\n${list.traces.length} trace${list.traces.length === 1 ? '' : 's'} (newest first; svc log:trace <id> shows one)`))
}
