import { migrate } from '../../../framework/index.ts'
import { defineCommand } from '../../command/define.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { printLine } from '../../output/print.ts'
import { forceArg, refuseInProduction } from '../../database/production.ts'
import { migrationProgress, withProjectMigrations } from '../../project/migrations.ts'
import { projectFor } from '../../project/project.ts'

export default defineCommand({
  meta: { name: 'migrate', group: 'Database', description: 'Run pending migrations', json: ['MigrateJson'] },
  args: {
    ...cwdArg,
    ...jsonArg,
    ...forceArg,
  },
  async run({ args, io, json }) {
    const project = projectFor(io, args.cwd)
    refuseInProduction(project, {
      command: 'migrate',
      does: 'changes the live database',
      force: args.force,
      hint: 'run svc migrate --force when you mean it (svc deploy does)',
    })
    const progress = migrationProgress(io, args.json)
    const ran = await withProjectMigrations(project, ({ db, migrations }) => migrate(db, migrations, progress)).finally(() => progress.done())
    if (args.json) return json({ ran })
    if (ran.length === 0) printLine(io, 'Nothing to migrate.')
  },
})
