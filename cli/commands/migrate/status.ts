import { defineCommand } from 'citty'
import { migrationStatus } from '../../../framework/index.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { color, printJson, printLine, table } from '../../output/print.ts'
import { withProjectMigrations } from '../../project/migrations.ts'

export interface MigrationStatusJson {
  migrations: Array<{ name: string; status: 'ran' | 'pending'; batch: number | null; ran_at: string | null }>
}

export default defineCommand({
  args: {
    ...cwdArg,
    ...jsonArg,
    pending: { type: 'boolean', description: 'Only pending migrations', default: false },
  },
  async run({ args }) {
    const statuses = await withProjectMigrations(args.cwd, ({ db, migrations }) => migrationStatus(db, migrations))
    const rows: MigrationStatusJson['migrations'] = statuses
      .map((row) => ({ name: row.name, status: row.batch === null ? ('pending' as const) : ('ran' as const), batch: row.batch, ran_at: row.ran_at }))
      .filter((row) => !args.pending || row.status === 'pending')
    if (args.json) return printJson({ migrations: rows } satisfies MigrationStatusJson)
    if (rows.length === 0) return printLine(args.pending ? 'No pending migrations.' : 'No migrations.')
    printLine(
      table(
        rows.map((row) => [row.status === 'ran' ? color.green('Ran') : color.yellow('Pending'), row.name, row.batch === null ? '' : String(row.batch)]),
        ['STATUS', 'MIGRATION', 'BATCH'],
      ),
    )
  },
})
