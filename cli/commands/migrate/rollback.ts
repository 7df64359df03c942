import { rollback } from '../../../framework/index.ts'
import { defineCommand } from '../../command/define.ts'
import { refuseMissingDatabase } from '../../database/open.ts'
import { forceArg, refuseInProduction } from '../../database/production.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { printLine } from '../../output/print.ts'
import { loadConfig } from '../../project/load-app.ts'
import { withProjectMigrations } from '../../project/migrations.ts'
import { projectFor } from '../../project/project.ts'

export default defineCommand({
  meta: { name: 'migrate:rollback', group: 'Database', description: 'Roll back the last batch of migrations', json: ['RollbackJson'] },
  args: {
    ...cwdArg,
    ...jsonArg,
    step: { type: 'number', description: 'How many batches to roll back', valueHint: 'n', integer: true, min: 1, default: 1 },
    ...forceArg,
  },
  async run({ args, io, json }) {
    const project = projectFor(io, args.cwd)
    refuseInProduction(project, { command: 'migrate:rollback', does: 'runs down() on the live database (it drops tables and columns)', force: args.force })
    // No database file: a mistyped DATABASE_URL or a deleted storage/, not "nothing to roll back" (and no empty file made).
    refuseMissingDatabase(project, loadConfig(project))
    const rolledBack = await withProjectMigrations(project, ({ db, migrations }) => rollback(db, migrations, args.step))
    if (args.json) return json({ rolled_back: rolledBack })
    if (rolledBack.length === 0) return printLine(io, 'Nothing to roll back.')
    for (const name of rolledBack) printLine(io, `Rolled back: ${name}`)
  },
})
