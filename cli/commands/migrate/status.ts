import { migrationStatus } from '../../../framework/index.ts'
import { defineCommand } from '../../command/define.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import type { MigrationStatusJson } from '../../contract/index.ts'
import { colors, printLine, printNote, table } from '../../output/print.ts'
import { withProjectMigrations } from '../../project/migrations.ts'
import { projectFor } from '../../project/project.ts'

export default defineCommand({
  meta: { name: 'migrate:status', group: 'Database', description: 'Show which migrations ran', json: ['MigrationStatusJson'] },
  args: {
    ...cwdArg,
    ...jsonArg,
    pending: { type: 'boolean', description: 'Only pending migrations' },
  },
  async run({ args, io, json }) {
    const { statuses, files } = await withProjectMigrations(projectFor(io, args.cwd), async ({ db, migrations }) => ({
      statuses: await migrationStatus(db, migrations),
      files: new Set(migrations.map((migration) => migration.name)),
    }))
    const rows: MigrationStatusJson['migrations'] = statuses
      .map((row) => ({
        name: row.name,
        status: row.batch === null ? ('pending' as const) : ('ran' as const),
        batch: row.batch,
        ran_at: row.ran_at,
        file_missing: !files.has(row.name),
      }))
      .filter((row) => !args.pending || row.status === 'pending')
    if (args.json) return json({ migrations: rows })
    if (rows.length === 0) return printLine(io, args.pending ? 'No pending migrations.' : 'No migrations.')
    const color = colors(io)
    const statusText = (row: (typeof rows)[number]) =>
      row.file_missing ? color.red('Ran, file missing') : row.status === 'ran' ? color.green('Ran') : color.yellow('Pending')
    printLine(io, table(rows.map((row) => [statusText(row), row.name, row.batch === null ? '' : String(row.batch)]), ['STATUS', 'MIGRATION', 'BATCH']))
    const missing = rows.filter((row) => row.file_missing)
    if (missing.length > 0) {
      printNote(
        io,
        `${missing.length === 1 ? 'One applied migration has' : `${missing.length} applied migrations have`} no file in database/migrations/ (${missing.map((row) => row.name).join(', ')}): ` +
          'restore it before svc migrate:rollback reaches its batch, which needs its down()',
      )
    }
  },
})
