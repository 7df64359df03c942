import { defineCommand } from '../../command/define.ts'
import { cwdArg } from '../../output/args.ts'
import { colors, printLine, printNote } from '../../output/print.ts'
import { refuseMissingDatabase } from '../../database/open.ts'
import { loadApp, loadConfig } from '../../project/load-app.ts'
import { projectFor } from '../../project/project.ts'
import { printScheduleRun, runScheduledMinute } from '../../schedule/run-minute.ts'
import { loadSchedule, scheduleTimezone } from '../../schedule/tasks.ts'

/** Resolves at the start of the next minute, or at once when stopped. */
function nextMinute(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve()
    const timer = setTimeout(done, 60_000 - (Date.now() % 60_000))
    signal.addEventListener('abort', done, { once: true })
    function done() {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
  })
}

export default defineCommand({
  meta: {
    name: 'schedule:work',
    group: 'Scheduler',
    description: 'Run the scheduler in the foreground: the due tasks now, then at the start of every minute, until stopped (development, or a host without cron)',
  },
  args: { ...cwdArg },
  async run({ args, io }) {
    const project = projectFor(io, args.cwd)
    // The tasks' locks live in the app's database: with no database file yet, loading the app would make an empty
    // one (a cron line running every minute before the first migrate, or with a mistyped DATABASE_URL, left it).
    refuseMissingDatabase(project, loadConfig(project))
    // Loaded once: app/schedule.ts and the app are read at start (restart to pick up changes).
    const loaded = await loadApp(project, { trace: false })
    try {
      const tasks = await loadSchedule(project, loaded.config)
      const timezone = scheduleTimezone(project, loaded.config)
      const color = colors(io)
      printNote(io, `Running ${tasks.length} scheduled tasks every minute (${timezone}); Ctrl+C stops.`)
      while (!io.signal.aborted) {
        // The same lock rows as schedule:run: beside cron on another host, each minute's task still runs once.
        const document = await runScheduledMinute({ loaded, tasks, timezone, now: new Date() })
        if (document.results.length > 0) printScheduleRun(io, document, `${color.dim(document.minute)} `)
        await nextMinute(io.signal)
      }
      printLine(io, 'Scheduler stopped.')
    } finally {
      await loaded.close()
    }
  },
})
