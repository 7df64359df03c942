import { migrate } from '../../../framework/index.ts'
import { defineCommand } from '../../command/define.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { printLine } from '../../output/print.ts'
import { withProjectMigrations } from '../../project/migrations.ts'
import { projectFor } from '../../project/project.ts'

export default defineCommand({
  meta: { name: 'migrate', group: 'Database', description: 'Run pending migrations', json: ['MigrateJson'] },
  args: { ...cwdArg, ...jsonArg },
  async run({ args, io, json }) {
    const ran = await withProjectMigrations(projectFor(io, args.cwd), ({ db, migrations }) => migrate(db, migrations))
    if (args.json) return json({ ran })
    if (ran.length === 0) return printLine(io, 'Nothing to migrate.')
    for (const name of ran) printLine(io, `Migrated: ${name}`)
  },
})
