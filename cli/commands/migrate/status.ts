import { migrationStatus } from '../../../framework/index.ts'
import { defineCommand } from '../../command/define.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { colors, printLine, table } from '../../output/print.ts'
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
    const statuses = await withProjectMigrations(projectFor(io, args.cwd), ({ db, migrations }) => migrationStatus(db, migrations))
    const rows = statuses
      .map((row) => ({ name: row.name, status: row.batch === null ? ('pending' as const) : ('ran' as const), batch: row.batch, ran_at: row.ran_at }))
      .filter((row) => !args.pending || row.status === 'pending')
    if (args.json) return json({ migrations: rows })
    if (rows.length === 0) return printLine(io, args.pending ? 'No pending migrations.' : 'No migrations.')
    const color = colors(io)
    printLine(
      io,
      table(
        rows.map((row) => [row.status === 'ran' ? color.green('Ran') : color.yellow('Pending'), row.name, row.batch === null ? '' : String(row.batch)]),
        ['STATUS', 'MIGRATION', 'BATCH'],
      ),
    )
  },
})
