import { defineCommand } from '../../command/define.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { CliError } from '../../output/cli-error.ts'
import { printLine } from '../../output/print.ts'
import { loadConfig } from '../../project/load-app.ts'
import { projectFor } from '../../project/project.ts'
import { cleanupTraces } from '../../trace/cleanup.ts'
import { openTraceStoreToRead, projectTraceConfig } from '../../trace/open-store.ts'

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
    const retention = projectTraceConfig(project, config).retentionDays
    // TRACE_RETENTION_DAYS=0 keeps every trace (the writer and svc:prune-traces never prune): a default age
    // here (it was 7 days) deleted what the setting says to keep.
    if (args.days === undefined && retention === 0) {
      throw new CliError('E_NO_RETENTION', 'TRACE_RETENTION_DAYS is 0: every trace is kept, so log:cleanup has no age to delete by; nothing was deleted', {
        hint: 'pass --days N to delete traces older than N days (--days 0 deletes all), or set TRACE_RETENTION_DAYS',
      })
    }
    const days = args.days ?? retention
    const dryRun = args['dry-run']
    // A store not there yet has nothing to delete: it is not created for that (nor is a mistyped TRACE_DATABASE_URL's).
    const store = await openTraceStoreToRead(io, project, config)
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
