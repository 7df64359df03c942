import { migrateFresh } from '../../../framework/index.ts'
import { defineCommand } from '../../command/define.ts'
import type { MigrateFreshJson } from '../../contract/index.ts'
import { forceArg, refuseInProduction } from '../../database/production.ts'
import { runSeeders, seededLines } from '../../database/seed.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { printLine } from '../../output/print.ts'
import { migrationProgress, withProjectMigrations } from '../../project/migrations.ts'
import { projectFor } from '../../project/project.ts'

export default defineCommand({
  meta: { name: 'migrate:fresh', group: 'Database', description: 'Drop all tables and migrate again', json: ['MigrateFreshJson'] },
  args: {
    ...cwdArg,
    ...jsonArg,
    seed: { type: 'boolean', description: 'Run the seeders afterwards' },
    ...forceArg,
  },
  async run({ args, io, json }) {
    const project = projectFor(io, args.cwd)
    refuseInProduction(project, { command: 'migrate:fresh', does: 'drops every table of the live database', force: args.force })
    const progress = migrationProgress(io, args.json, 'Dropped all tables.')
    const result = await withProjectMigrations(project, async ({ project, db, migrations }): Promise<MigrateFreshJson> => {
      const ran = await migrateFresh(db, migrations, progress)
      progress.done()
      const seeded = args.seed ? await runSeeders(project, db, io) : { seeded: [], seeded_rows: [] }
      return { ran, ...seeded }
    }).finally(() => progress.stop())
    if (args.json) return json(result)
    if (args.seed) for (const line of result.seeded.length > 0 ? seededLines(result) : ['No seeders in database/seeders/.']) printLine(io, line)
  },
})
