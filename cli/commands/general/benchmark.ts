import { format } from 'node:util'
import { defineCommand } from '../../command/define.ts'
import { measureRoutes, planRoutes } from '../../benchmark/routes.ts'
import type { BenchmarkJson } from '../../contract/devtools.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import type { CommandIO } from '../../output/io.ts'
import { colors, printLine, printNote, table } from '../../output/print.ts'
import { createProgress } from '../../output/progress.ts'
import { loadApp } from '../../project/load-app.ts'
import { projectFor } from '../../project/project.ts'
import { signAccessToken } from '../../trace/sign-as.ts'
import { formatMs, statusColor } from '../../trace/summary.ts'

export default defineCommand({
  meta: { name: 'benchmark', group: 'Testing', description: 'Time every GET route in process (app.fetch, no server): p50, p95 and max per route', json: ['BenchmarkJson'] },
  args: {
    ...cwdArg,
    ...jsonArg,
    iterations: { type: 'number', description: 'Measured requests per route', valueHint: 'n', integer: true, min: 1, max: 1_000_000, default: 100 },
    as: { type: 'string', description: 'Send a token signed for this user (development and test only), for routes behind auth', valueHint: 'email' },
  },
  async run({ args, io, json }) {
    const project = projectFor(io, args.cwd)
    // Untraced (the trace store is left alone), and throttles count in memory (the real counters are left alone).
    const loaded = await loadApp(project, { trace: false, overrides: { THROTTLE_STORE: 'memory' } })
    let document: BenchmarkJson
    try {
      const headers: Record<string, string> = {}
      if (args.as !== undefined) headers.authorization = `Bearer ${await signAccessToken(project, loaded.config, loaded.database!, { email: args.as })}`
      const plans = await planRoutes(loaded.app)
      const measured = plans.filter((plan) => 'url' in plan).length
      const progress = createProgress(io, { total: measured, label: 'Benchmarking' })
      const warmup = Math.min(10, args.iterations)
      let results: Awaited<ReturnType<typeof measureRoutes>>
      // The app logs each unexpected error (with its stack in development): once per request would bury the table.
      const errors = quietErrors()
      try {
        results = await measureRoutes(loaded.app, plans, {
          iterations: args.iterations,
          warmup,
          headers,
          signal: io.signal,
          onRoute: ({ route, url }) => progress.step(`${route.method} ${url}`),
          onMeasured: () => progress.tick(),
        })
      } finally {
        progress.done()
        errors.restore(io)
      }
      document = { iterations: args.iterations, warmup, as: args.as ?? null, ...results }
    } finally {
      await loaded.close()
    }
    if (args.json) return json(document)
    const color = colors(io)
    const rows = document.routes.map((route) => [
      route.method,
      route.path,
      route.url === route.path ? '' : color.dim(route.url),
      Object.entries(route.statuses).map(([status, count]) => statusColor(Number(status), color)(Object.keys(route.statuses).length === 1 ? status : `${status} x${count}`)).join(' '),
      formatMs(route.p50_ms),
      formatMs(route.p95_ms),
      formatMs(route.max_ms),
      String(route.requests_per_second),
    ])
    printLine(io, table(rows, ['METHOD', 'ROUTE', 'REQUESTED', 'STATUS', 'P50', 'P95', 'MAX', 'REQ/S']))
    printLine(io, color.dim(`${document.iterations} requests per route after ${document.warmup} unmeasured, one at a time, in this process (no server, no tracing)`))
    for (const skipped of document.skipped) printLine(io, `${color.yellow('skipped')} ${skipped.method} ${skipped.path}: ${skipped.reason}`)
    if (args.as === undefined && document.routes.some((route) => route.statuses['401'] !== undefined)) {
      printNote(io, 'Routes behind auth answered 401: --as=<email> sends a token signed for that user (development and test).')
    }
  },
})

/**
 * Holds back what the app writes to console.error while routes are measured
 * (a failing route reports each request, with its stack in development), then
 * writes the first report in full and how many there were, on stderr.
 */
function quietErrors(): { restore(io: CommandIO): void } {
  const saved = console.error
  let count = 0
  let first: string | undefined
  console.error = (...args: unknown[]) => {
    count++
    first ??= format(...args)
  }
  return {
    restore(io) {
      console.error = saved
      if (first === undefined) return
      io.stderr.write(`${first}\n`)
      if (count > 1) io.stderr.write(`(the app reported ${count} errors while measuring; the first is above)\n`)
    },
  }
}
