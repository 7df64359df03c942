import { defineCommand } from 'citty'
import type { CleanupJson } from '../../contract/traces.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { printJson, printLine } from '../../output/print.ts'
import { loadConfig } from '../../project/load-app.ts'
import { findProject } from '../../project/project.ts'
import { cleanupTraces } from '../../trace/cleanup.ts'
import { openProjectTraceStore, projectTraceConfig } from '../../trace/open-store.ts'
import { daysOption } from './stats.ts'

export default defineCommand({
  args: {
    ...cwdArg,
    ...jsonArg,
    days: { type: 'string', description: 'Delete traces older than N days (default TRACE_RETENTION_DAYS; 0 deletes all)', valueHint: 'n' },
    'dry-run': { type: 'boolean', description: 'Only count what would be deleted', default: false },
  },
  async run({ args }) {
    const project = findProject(args.cwd)
    const config = loadConfig(project)
    const days = args.days === '0' ? 0 : daysOption(args.days, projectTraceConfig(project, config).retentionDays || 7)
    const dryRun = args['dry-run'] === true
    const store = await openProjectTraceStore(project, config)
    let json: CleanupJson
    try {
      json = await cleanupTraces(store, { days, dryRun })
    } finally {
      store.close()
    }
    if (args.json) return printJson(json)
    printLine(
      json.dry_run
        ? `Would delete ${json.deleted} trace(s) older than ${days} day(s); ${json.remaining} would remain.`
        : `Deleted ${json.deleted} trace(s) older than ${days} day(s); ${json.remaining} remain.`,
    )
  },
})
