import { defineCommand } from 'citty'
import type { TraceFilter } from '../../../framework/trace/index.ts'
import { cwdArg, intOption, jsonArg } from '../../output/args.ts'
import { CliError } from '../../output/cli-error.ts'
import { printLine, printNote } from '../../output/print.ts'
import { loadConfig } from '../../project/load-app.ts'
import { findProject } from '../../project/project.ts'
import { parseFilters, traceFilterArgs, type FilterArgs } from '../../trace/filters.ts'
import { openProjectTraceStore, projectTraceConfig } from '../../trace/open-store.ts'
import { summaryLine, summaryOfRow } from '../../trace/summary.ts'

const { limit: _limit, ...filters } = traceFilterArgs
const POLL_MS = 500

export default defineCommand({
  args: {
    ...cwdArg,
    ...jsonArg,
    type: { type: 'string', description: 'all, error (5xx) or slow (>= TRACE_SLOW_MS)', default: 'all', valueHint: 'all|error|slow' },
    lines: { type: 'string', description: 'Show the last N traces first (default 10)', valueHint: 'n' },
    follow: { type: 'boolean', description: 'Keep printing new traces (--no-follow: print and exit)', default: true },
    ...filters,
  },
  async run({ args }) {
    const project = findProject(args.cwd)
    const config = loadConfig(project)
    const slowMs = projectTraceConfig(project, config).slowMs
    const lines = intOption('lines', args.lines, 10, 0)
    const { filter } = parseFilters({ ...(args as FilterArgs), limit: undefined }, slowMs)
    delete filter.limit
    if (args.type === 'error') filter.error = true
    else if (args.type === 'slow') filter.minDurationMs = filter.minDurationMs ?? slowMs
    else if (args.type !== 'all') throw new CliError('E_BAD_OPTION', `--type takes all, error or slow, got "${args.type}"`)

    const store = await openProjectTraceStore(project, config)
    const print = (rows: Awaited<ReturnType<typeof store.search>>) => {
      for (const row of rows) {
        const summary = summaryOfRow(row)
        printLine(args.json ? JSON.stringify(summary) : summaryLine(summary).filter(Boolean).join('  '))
      }
    }
    let last: string | undefined
    try {
      const first = (await store.search({ ...filter, limit: lines })).reverse()
      print(first)
      last = first.at(-1)?.trace_id ?? (await store.search({ limit: 1 }))[0]?.trace_id
      if (!args.follow) return
      if (!args.json) printNote('Following new traces (Ctrl-C to stop)...')
    } catch (error) {
      store.close()
      throw error
    }
    await new Promise<void>((resolve) => {
      const stop = () => {
        clearInterval(timer)
        resolve()
      }
      let busy = false
      const timer = setInterval(async () => {
        if (busy) return
        busy = true
        try {
          const query: TraceFilter = last === undefined ? { ...filter, order: 'oldest' } : { ...filter, afterTraceId: last, order: 'oldest' }
          const rows = await store.search(query)
          print(rows)
          if (rows.length > 0) last = rows.at(-1)!.trace_id
          else if (last === undefined) last = (await store.search({ limit: 1 }))[0]?.trace_id
        } finally {
          busy = false
        }
      }, POLL_MS)
      process.once('SIGINT', stop)
      process.once('SIGTERM', stop)
    })
    store.close()
  },
})
