/** One minute of the scheduler, shared by `schedule:run` (once, from cron) and `schedule:work` (every minute, in the foreground). */
import { hostname } from 'node:os'
import { minuteOf, runSchedule, type ScheduledTask } from '../../framework/scheduler/index.ts'
import type { ScheduleRunJson } from '../contract/index.ts'
import type { CommandIO } from '../output/io.ts'
import { colors, printLine } from '../output/print.ts'
import { terminalText } from '../output/terminal-text.ts'
import type { LoadedApp } from '../project/load-app.ts'

const SKIPPED = {
  already_ran: "this minute's run happens (or happened)",
  locked: 'a run of it still holds its lock',
} as const

/** Where the run that holds a task is: `process 812 on this host`, or `web-2 (process 812)`. */
function holder(heldBy: string | null): string {
  if (heldBy === null) return ''
  const colon = heldBy.lastIndexOf(':')
  const [host, pid] = colon === -1 ? [heldBy, ''] : [heldBy.slice(0, colon), heldBy.slice(colon + 1)]
  if (host === hostname()) return pid === '' ? ' on this host' : ` in process ${pid} on this host`
  return pid === '' ? ` on ${host}` : ` on ${host} (process ${pid})`
}

export interface ScheduledMinute {
  loaded: LoadedApp
  tasks: ScheduledTask[]
  timezone: string
  now: Date
  /** Run this task now, due or not. */
  only?: string
}

export async function runScheduledMinute({ loaded, tasks, timezone, now, only }: ScheduledMinute): Promise<ScheduleRunJson> {
  const results = await runSchedule({
    tasks,
    db: loaded.database!,
    services: { db: loaded.database, queue: loaded.queue, mailer: loaded.mailer, config: loaded.config },
    now,
    timezone,
    only,
    owner: `${hostname()}:${process.pid}`,
  })
  return {
    minute: minuteOf(now).toISOString(),
    results: results.map((result) => ({
      task: result.task,
      status: result.status,
      reason: result.reason ?? null,
      held_by: result.heldBy ?? null,
      duration_ms: result.durationMs ?? null,
      error: result.error ?? null,
    })),
  }
}

/** One line per task: ran, failed (with the error) or skipped (with why). */
export function printScheduleRun(io: CommandIO, document: ScheduleRunJson, prefix = ''): void {
  const color = colors(io)
  if (document.results.length === 0) return printLine(io, `${prefix}No task is due at ${document.minute}.`)
  for (const result of document.results) {
    if (result.status === 'ran') printLine(io, `${prefix}${color.green('ran')}     ${result.task} (${result.duration_ms} ms)`)
    // The task's error is the app's text: escaped, so that a NUL or an escape sequence in it stays one inert line (--json keeps it exact).
    else if (result.status === 'failed') printLine(io, `${prefix}${color.red('failed')}  ${result.task} (${result.duration_ms} ms): ${terminalText(result.error ?? '')}`)
    else printLine(io, `${prefix}${color.dim('skipped')} ${result.task}: ${SKIPPED[result.reason!]}${holder(result.held_by)}`)
  }
}
