import { migrationStatus } from '../../../framework/index.ts'
import { defineCommand } from '../../command/define.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import type { MigrationStatusJson } from '../../contract/index.ts'
import { colors, printLine, printNote, table } from '../../output/print.ts'
import { missingDatabaseFile } from '../../database/open.ts'
import { loadMigrations, withProjectMigrations } from '../../project/migrations.ts'
import { projectFor } from '../../project/project.ts'

export default defineCommand({
  meta: { name: 'migrate:status', group: 'Database', description: 'Show which migrations ran', json: ['MigrationStatusJson'] },
  args: {
    ...cwdArg,
    ...jsonArg,
    pending: { type: 'boolean', description: 'Only pending migrations' },
  },
  async run({ args, io, json }) {
    const project = projectFor(io, args.cwd)
    // It only reads: with no database file yet, every migration is pending, and no empty file is made
    // (it used to create the file and its migrations table, so a mistyped DATABASE_URL left a stray database).
    const noDatabase = missingDatabaseFile(project)
    const { statuses, files } =
      noDatabase === undefined
        ? await withProjectMigrations(project, async ({ db, migrations }) => ({
            statuses: await migrationStatus(db, migrations),
            files: new Set(migrations.map((migration) => migration.name)),
          }))
        : await loadMigrations(project).then((migrations) => ({
            statuses: migrations.map((migration) => ({ name: migration.name, batch: null, ran_at: null })).sort((a, b) => a.name.localeCompare(b.name)),
            files: new Set(migrations.map((migration) => migration.name)),
          }))
    if (noDatabase !== undefined) printNote(io, `No database yet at ${noDatabase}: every migration is pending (svc migrate creates it).`)
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
