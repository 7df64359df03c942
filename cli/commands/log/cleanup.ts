import { defineCommand } from '../../command/define.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { printLine } from '../../output/print.ts'
import { loadConfig } from '../../project/load-app.ts'
import { projectFor } from '../../project/project.ts'
import { cleanupTraces } from '../../trace/cleanup.ts'
import { openProjectTraceStore, projectTraceConfig } from '../../trace/open-store.ts'

export default defineCommand({
  meta: { name: 'log:cleanup', group: 'Debug and logs', description: 'Delete traces older than N days', json: ['CleanupJson'] },
  args: {
    ...cwdArg,
    ...jsonArg,
    days: { type: 'number', description: 'Delete traces older than N days (default TRACE_RETENTION_DAYS; 0 deletes all)', valueHint: 'n', min: 0 },
    'dry-run': { type: 'boolean', description: 'Only count what would be deleted' },
  },
  async run({ args, io, json: print }) {
    const project = projectFor(io, args.cwd)
    const config = loadConfig(project)
    const days = args.days ?? (projectTraceConfig(project, config).retentionDays || 7)
    const dryRun = args['dry-run']
    const store = await openProjectTraceStore(project, config)
    let json
    try {
      json = await cleanupTraces(store, { days, dryRun })
    } finally {
      store.close()
    }
    if (args.json) return print(json)
    printLine(
      io,
      json.dry_run
        ? `Would delete ${json.deleted} trace(s) older than ${days} day(s); ${json.remaining} would remain.`
        : `Deleted ${json.deleted} trace(s) older than ${days} day(s); ${json.remaining} remain.`,
    )
  },
})
