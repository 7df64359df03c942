import { defineCommand } from '../../command/define.ts'
import { withExistingDatabase } from '../../database/open.ts'
import { forceArg, refuseInProduction } from '../../database/production.ts'
import { runSeeders, seededLines, selectSeeders } from '../../database/seed.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { printLine } from '../../output/print.ts'
import { projectFor } from '../../project/project.ts'

export default defineCommand({
  meta: { name: 'db:seed', group: 'Database', description: 'Run the seeders in database/seeders/ (each in a transaction)', json: ['DbSeedJson'] },
  args: {
    ...cwdArg,
    ...jsonArg,
    class: { type: 'string', description: 'Run only this seeder (its file name; UserSeeder finds users.ts too)', valueHint: 'Name', nonEmpty: true },
    ...forceArg,
  },
  async run({ args, io, json }) {
    const project = projectFor(io, args.cwd)
    refuseInProduction(project, { command: 'db:seed', does: 'writes rows into the live database', force: args.force })
    const names = selectSeeders(project, args.class)
    const result = await withExistingDatabase(project, (db) => runSeeders(project, db, io, names))
    if (args.json) return json(result)
    if (result.seeded.length === 0) return printLine(io, 'No seeders in database/seeders/ (svc make:seeder <Name> writes one).')
    for (const line of seededLines(result)) printLine(io, line)
  },
})
