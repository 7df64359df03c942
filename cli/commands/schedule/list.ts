import { nextRunOf } from '../../../framework/scheduler/index.ts'
import { lastRuns } from '../../../framework/scheduler/runner.ts'
import { defineCommand } from '../../command/define.ts'
import type { ScheduleListJson } from '../../contract/index.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { colors, printLine, table } from '../../output/print.ts'
import { missingDatabaseFile } from '../../database/open.ts'
import { loadConfig, openProjectDatabase } from '../../project/load-app.ts'
import { projectFor } from '../../project/project.ts'
import { loadSchedule, scheduleTimezone } from '../../schedule/tasks.ts'

export default defineCommand({
  meta: { name: 'schedule:list', group: 'Scheduler', description: 'The scheduled tasks with their next and last runs', json: ['ScheduleListJson'] },
  args: {
    ...cwdArg,
    ...jsonArg,
  },
  async run({ args, io, json }) {
    const project = projectFor(io, args.cwd)
    const config = loadConfig(project)
    const timezone = scheduleTimezone(project, config)
    const tasks = await loadSchedule(project, config)
    // It only reads: before the database exists no task has run, and no empty file is made for it.
    let last: Awaited<ReturnType<typeof lastRuns>> = new Map()
    if (missingDatabaseFile(project, config) === undefined) {
      const db = await openProjectDatabase(project, config)
      try {
        last = await lastRuns(db)
      } finally {
        db.close()
      }
    }
    const now = new Date()
    const document: ScheduleListJson = {
      timezone,
      tasks: tasks.map((task) => {
        const run = last.get(task.name)
        return {
          name: task.name,
          cron: task.cron,
          timezone: task.timezone ?? timezone,
          description: task.description ?? null,
          builtin: task.builtin,
          next_run: nextRunOf(task, now, timezone)?.toISOString() ?? null,
          last_run:
            run === undefined
              ? null
              : {
                  started_at: new Date(run.startedAt).toISOString(),
                  finished_at: run.finishedAt === null ? null : new Date(run.finishedAt).toISOString(),
                  status: run.status,
                  error: run.error,
                  running: run.running,
                },
        }
      }),
    }
    if (args.json) return json(document)
    const color = colors(io)
    printLine(
      io,
      table(
        document.tasks.map((task) => [
          task.builtin ? color.dim(task.name) : task.name,
          task.cron,
          task.timezone,
          task.next_run === null ? 'never' : `${task.next_run.replace('T', ' ').slice(0, 16)} UTC (${untilText(task.next_run, now)})`,
          task.last_run === null ? '' : task.last_run.running ? color.yellow('running') : `${task.last_run.status} ${task.last_run.started_at.replace('T', ' ').slice(0, 16)}`,
        ]),
        ['TASK', 'CRON', 'ZONE', 'NEXT RUN', 'LAST RUN'],
      ),
    )
    printLine(io, color.dim('Run `svc schedule:run` every minute from cron: * * * * * cd /path/to/app && svc schedule:run'))
  },
})

function untilText(iso: string, now: Date): string {
  const minutes = Math.max(0, Math.round((Date.parse(iso) - now.getTime()) / 60_000))
  if (minutes < 60) return `in ${minutes} min`
  if (minutes < 48 * 60) return `in ${Math.round(minutes / 60)} h`
  return `in ${Math.round(minutes / 1440)} days`
}
