import { defineCommand } from 'citty'
import { migrate } from '../../../framework/index.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { printJson, printLine } from '../../output/print.ts'
import { withProjectMigrations } from '../../project/migrations.ts'

export interface MigrateJson {
  ran: string[]
}

export default defineCommand({
  args: { ...cwdArg, ...jsonArg },
  async run({ args }) {
    const ran = await withProjectMigrations(args.cwd, ({ db, migrations }) => migrate(db, migrations))
    if (args.json) return printJson({ ran } satisfies MigrateJson)
    if (ran.length === 0) return printLine('Nothing to migrate.')
    for (const name of ran) printLine(`Migrated: ${name}`)
  },
})
