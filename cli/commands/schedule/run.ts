import { defineCommand } from '../../command/define.ts'
import type { ScheduleRunJson } from '../../contract/index.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { CliError } from '../../output/cli-error.ts'
import { refuseMissingDatabase } from '../../database/open.ts'
import { loadApp, loadConfig } from '../../project/load-app.ts'
import { projectFor } from '../../project/project.ts'
import { printScheduleRun, runScheduledMinute } from '../../schedule/run-minute.ts'
import { loadSchedule, scheduleTimezone } from '../../schedule/tasks.ts'

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
    // The tasks' locks live in the app's database: with no database file yet, loading the app would make an empty
    // one (a cron line running every minute before the first migrate, or with a mistyped DATABASE_URL, left it).
    refuseMissingDatabase(project, loadConfig(project))
    const loaded = await loadApp(project, { trace: false })
    let document: ScheduleRunJson
    try {
      const tasks = await loadSchedule(project, loaded.config)
      if (args.task !== undefined && !tasks.some((task) => task.name === args.task)) {
        throw new CliError('E_SCHEDULE_TASK', `No scheduled task is named "${args.task}"`, { hint: `svc schedule:list shows them: ${tasks.map((task) => task.name).join(', ')}` })
      }
      document = await runScheduledMinute({ loaded, tasks, timezone: scheduleTimezone(project, loaded.config), now, only: args.task })
    } finally {
      await loaded.close()
    }
    if (document.results.some((result) => result.status === 'failed')) io.exitCode = 1
    if (args.json) return json(document)
    printScheduleRun(io, document)
  },
})
