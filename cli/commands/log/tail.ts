import { relative } from 'node:path'
import { fileIdentity } from '../../../framework/node/traces.ts'
import type { TraceFilter, TraceStore } from '../../../framework/trace/index.ts'
import type { CommandIO } from '../../output/io.ts'
import { defineCommand } from '../../command/define.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { colors, printLine, printNote } from '../../output/print.ts'
import { loadConfig } from '../../project/load-app.ts'
import { projectFor, type Project } from '../../project/project.ts'
import { parseFilters, traceFilterArgs } from '../../trace/filters.ts'
import { noTracesYet, openExistingTraceStore, projectTraceConfig, traceStoreFile } from '../../trace/open-store.ts'
import { readReplayKey } from '../../trace/replay-marker.ts'
import { summaryLine, summaryOfRecord } from '../../trace/summary.ts'

const { limit: _limit, ...filters } = traceFilterArgs
const POLL_MS = 500

/** With --json: one TraceSummaryJson a line (NDJSON), as traces arrive. */
export default defineCommand({
  meta: { name: 'log:tail', group: 'Debug and logs', description: 'Print the latest traces and follow new ones', json: ['TraceSummaryJson'] },
  args: {
    ...cwdArg,
    ...jsonArg,
    type: { type: 'enum', description: 'All traces, errors (5xx) or slow ones (>= TRACE_SLOW_MS)', options: ['all', 'error', 'slow'], default: 'all' },
    lines: { type: 'number', description: 'Show the last N traces first', valueHint: 'n', integer: true, min: 0, default: 10 },
    follow: { type: 'boolean', description: 'Keep printing new traces until stopped', default: true },
    ...filters,
  },
  async run({ args, io }) {
    const project = projectFor(io, args.cwd)
    const config = loadConfig(project)
    const slowMs = projectTraceConfig(project, config).slowMs
    const { filter } = parseFilters(args, slowMs)
    delete filter.limit
    if (args.type === 'error') filter.error = true
    else if (args.type === 'slow') filter.minDurationMs = filter.minDurationMs ?? slowMs

    const color = colors(io)
    // Never creates the store: before the first traced request, it waits for the server to create it.
    let existing = await openExistingTraceStore(project, config)
    if (existing === undefined) {
      printNote(io, noTracesYet(project, config))
      if (!args.follow) return
      if (!args.json) printNote(io, 'Waiting for the first trace (Ctrl-C to stop)...')
      existing = await whenStoreExists(io, project, config)
      if (existing === undefined) return
    }
    let store: TraceStore = existing
    const print = (records: Awaited<ReturnType<TraceStore['records']>>) => {
      const replayKey = readReplayKey(project) // read per batch: the first replay may write the key while tailing
      for (const record of records) {
        const summary = summaryOfRecord(record, replayKey)
        printLine(io, args.json ? JSON.stringify(summary) : summaryLine(summary, color).filter(Boolean).join('  '))
      }
    }
    let last: string | undefined
    const file = traceStoreFile(project, config)
    let opened = fileIdentity(file)
    let closed = false
    try {
      const first = (await store.records({ ...filter, limit: args.lines })).reverse()
      print(first)
      last = first.at(-1)?.trace_id ?? (await store.search({ limit: 1 }))[0]?.trace_id
      if (!args.follow || io.signal.aborted) return
      if (!args.json) printNote(io, 'Following new traces (Ctrl-C to stop)...')
      await new Promise<void>((resolve) => {
        let busy = false
        const timer = setInterval(async () => {
          if (busy) return
          busy = true
          try {
            if (fileIdentity(file) !== opened) {
              // Deleted or replaced (rm -rf storage/): the deleted file would never show another trace.
              store.close()
              closed = true
              printNote(io, `${relative(project.root, file!) || file} was deleted; following the store the server creates next...`)
              const next = (await openExistingTraceStore(project, config)) ?? (await whenStoreExists(io, project, config))
              if (next === undefined) return
              ;[store, opened, closed, last] = [next, fileIdentity(file), false, undefined]
            }
            const query: TraceFilter = last === undefined ? { ...filter, order: 'oldest' } : { ...filter, afterTraceId: last, order: 'oldest' }
            const rows = await store.records(query)
            print(rows)
            if (rows.length > 0) last = rows.at(-1)!.trace_id
            else if (last === undefined) last = (await store.search({ limit: 1 }))[0]?.trace_id
          } finally {
            busy = false
          }
        }, POLL_MS)
        io.signal.addEventListener(
          'abort',
          () => {
            clearInterval(timer)
            resolve()
          },
          { once: true },
        )
      })
    } finally {
      if (!closed) store.close()
    }
  },
})

/** Polls until the default store's file exists, then opens it; undefined when stopped first. */
async function whenStoreExists(io: CommandIO, project: Project, config: ReturnType<typeof loadConfig>): Promise<TraceStore | undefined> {
  while (!io.signal.aborted) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, POLL_MS)
      io.signal.addEventListener('abort', done, { once: true })
      function done() {
        clearTimeout(timer)
        io.signal.removeEventListener('abort', done)
        resolve()
      }
    })
    if (io.signal.aborted) return undefined
    const store = await openExistingTraceStore(project, config)
    if (store !== undefined) return store
  }
  return undefined
}
