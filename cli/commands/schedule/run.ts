import { hostname } from 'node:os'
import { minuteOf, runSchedule } from '../../../framework/scheduler/index.ts'
import { defineCommand } from '../../command/define.ts'
import type { ScheduleRunJson } from '../../contract/index.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { CliError } from '../../output/cli-error.ts'
import { colors, printLine } from '../../output/print.ts'
import { loadApp } from '../../project/load-app.ts'
import { projectFor } from '../../project/project.ts'
import { loadSchedule, scheduleTimezone } from '../../schedule/tasks.ts'

const SKIPPED = {
  already_ran: "this minute's run happens (or happened) on another host",
  locked: 'a run of it still holds its lock',
} as const

export default defineCommand({
  meta: { name: 'schedule:run', group: 'Scheduler', description: 'Run the scheduled tasks due this minute (from cron, every minute)', json: ['ScheduleRunJson'] },
  args: {
    ...cwdArg,
    ...jsonArg,
    task: { type: 'string', description: 'Run this task now, due or not (still never beside a running one)', valueHint: 'name' },
    at: { type: 'string', description: 'Run the tasks due at this time instead of now (ISO 8601)', valueHint: 'time' },
  },
  async run({ args, io, json }) {
    const now = args.at === undefined ? new Date() : new Date(args.at)
    if (Number.isNaN(now.getTime())) throw new CliError('E_BAD_OPTION', `--at takes an ISO 8601 time, got "${args.at}"`, { hint: '--at 2026-01-01T02:00:00Z' })
    const project = projectFor(io, args.cwd)
    const loaded = await loadApp(project, { trace: false })
    let document: ScheduleRunJson
    try {
      const tasks = await loadSchedule(project, loaded.config)
      if (args.task !== undefined && !tasks.some((task) => task.name === args.task)) {
        throw new CliError('E_SCHEDULE_TASK', `No scheduled task is named "${args.task}"`, { hint: `svc schedule:list shows them: ${tasks.map((task) => task.name).join(', ')}` })
      }
      const results = await runSchedule({
        tasks,
        db: loaded.database!,
        services: { db: loaded.database, queue: loaded.queue, mailer: loaded.mailer, config: loaded.config },
        now,
        timezone: scheduleTimezone(project, loaded.config),
        only: args.task,
        owner: `${hostname()}:${process.pid}`,
      })
      document = {
        minute: minuteOf(now).toISOString(),
        results: results.map((result) => ({
          task: result.task,
          status: result.status,
          reason: result.reason ?? null,
          duration_ms: result.durationMs ?? null,
          error: result.error ?? null,
        })),
      }
    } finally {
      await loaded.close()
    }
    if (document.results.some((result) => result.status === 'failed')) io.exitCode = 1
    if (args.json) return json(document)
    const color = colors(io)
    if (document.results.length === 0) return printLine(io, `No task is due at ${document.minute}.`)
    for (const result of document.results) {
      if (result.status === 'ran') printLine(io, `${color.green('ran')}     ${result.task} (${result.duration_ms} ms)`)
      else if (result.status === 'failed') printLine(io, `${color.red('failed')}  ${result.task} (${result.duration_ms} ms): ${result.error}`)
      else printLine(io, `${color.dim('skipped')} ${result.task}: ${SKIPPED[result.reason!]}`)
    }
  },
})
