import { defineCommand } from 'citty'
import { rollback } from '../../../framework/index.ts'
import { cwdArg, intOption, jsonArg } from '../../output/args.ts'
import { printJson, printLine } from '../../output/print.ts'
import { withProjectMigrations } from '../../project/migrations.ts'

export interface RollbackJson {
  rolled_back: string[]
}

export default defineCommand({
  args: {
    ...cwdArg,
    ...jsonArg,
    step: { type: 'string', description: 'How many batches to roll back (default 1: the last batch)' },
  },
  async run({ args }) {
    const steps = intOption('step', args.step, 1, 1)
    const rolledBack = await withProjectMigrations(args.cwd, ({ db, migrations }) => rollback(db, migrations, steps))
    if (args.json) return printJson({ rolled_back: rolledBack } satisfies RollbackJson)
    if (rolledBack.length === 0) return printLine('Nothing to roll back.')
    for (const name of rolledBack) printLine(`Rolled back: ${name}`)
  },
})
