import { defineCommand } from 'citty'
import { migrateFresh } from '../../../framework/index.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { printJson, printLine } from '../../output/print.ts'
import { runSeeders, withProjectMigrations } from '../../project/migrations.ts'

export interface MigrateFreshJson {
  ran: string[]
  seeded: string[]
}

export default defineCommand({
  args: {
    ...cwdArg,
    ...jsonArg,
    seed: { type: 'boolean', description: 'Run the seeders afterwards', default: false },
  },
  async run({ args }) {
    const result = await withProjectMigrations(args.cwd, async ({ project, db, migrations }) => {
      const ran = await migrateFresh(db, migrations)
      const seeded = args.seed ? await runSeeders(project, db) : []
      return { ran, seeded }
    })
    if (args.json) return printJson(result satisfies MigrateFreshJson)
    printLine('Dropped all tables.')
    for (const name of result.ran) printLine(`Migrated: ${name}`)
    for (const name of result.seeded) printLine(`Seeded: ${name}`)
  },
})
