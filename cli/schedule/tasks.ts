/**
 * The tasks `schedule:run` and `schedule:list` see: the app's
 * (`app/schedule.ts`, default export `defineSchedule([...])`), then svc's own
 * (framework/scheduler/builtin.ts, and the trace prune, which needs the
 * trace store on this machine).
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { BUILTIN_TASKS, builtinTask, isSchedule, isTimeZone, ScheduleDefinitionError, type AppConfig, type ScheduledTask } from '../../framework/index.ts'
import { CliError } from '../output/cli-error.ts'
import { forgetAppModules, importWithJiti, type ImportFile } from '../project/import-file.ts'
import type { Project } from '../project/project.ts'
import { openProjectTraceStore, projectTraceConfig } from '../trace/open-store.ts'

export const SCHEDULE_FILE = join('app', 'schedule.ts')

/** Deletes traces older than TRACE_RETENTION_DAYS (0 keeps them), as `log:cleanup` does by hand. */
export function pruneTracesTask(project: Project, config: AppConfig): ScheduledTask {
  return builtinTask(
    '20 3 * * *',
    async () => {
      const days = projectTraceConfig(project, config).retentionDays
      if (days === 0) return
      const store = await openProjectTraceStore(project, config)
      try {
        await store.prune({ olderThanMs: Date.now() - days * 86_400_000 })
      } finally {
        store.close()
      }
    },
    { name: 'svc:prune-traces', timezone: 'UTC', description: 'Delete traces older than TRACE_RETENTION_DAYS' },
  )
}

export async function loadSchedule(project: Project, config: AppConfig, importFile: ImportFile = importWithJiti): Promise<ScheduledTask[]> {
  const file = join(project.appDir, SCHEDULE_FILE)
  let tasks: readonly ScheduledTask[] = []
  if (existsSync(file)) {
    if (importFile === importWithJiti) forgetAppModules(project.appDir)
    let module: Record<string, unknown>
    try {
      module = await importFile(file)
    } catch (error) {
      const code = error instanceof ScheduleDefinitionError ? 'E_SCHEDULE' : 'E_APP_LOAD'
      throw new CliError(code, `Cannot load ${file}: ${(error as Error).message}`, { cause: error })
    }
    if (!isSchedule(module.default)) {
      throw new CliError('E_SCHEDULE', `${file} must export default defineSchedule([...])`, { hint: "import { defineSchedule, dailyAt } from 'svc'" })
    }
    tasks = module.default.tasks
  }
  const all = [...tasks, ...BUILTIN_TASKS, pruneTracesTask(project, config)]
  const names = new Set<string>()
  for (const task of all) {
    if (names.has(task.name)) throw new CliError('E_SCHEDULE', `Two scheduled tasks are named "${task.name}"`, { hint: 'names starting with svc: are svc\'s own' })
    names.add(task.name)
  }
  return all
}

/** SCHEDULE_TIMEZONE (an IANA zone), UTC by default: the zone of tasks that name none. */
export function scheduleTimezone(project: Project, config: AppConfig): string {
  const zone = config.vars.SCHEDULE_TIMEZONE?.trim() || 'UTC'
  if (!isTimeZone(zone)) {
    throw new CliError('E_CONFIG', `Invalid configuration: SCHEDULE_TIMEZONE: unknown time zone "${zone}"`, {
      hint: `use an IANA zone such as Europe/Paris in ${project.envFile}`,
    })
  }
  return zone
}
