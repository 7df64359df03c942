import { IDEMPOTENCY_MIGRATION_SOURCE } from '../../../framework/idempotency/schema.ts'
import { defineCommand } from '../../command/define.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { printLine, printNote } from '../../output/print.ts'
import { projectFor } from '../../project/project.ts'
import { writeMigrationFiles } from '../../project/write-migrations.ts'

/** Writes the migration of the `idempotency_keys` table (the `idempotent` middleware). */
export default defineCommand({
  meta: { name: 'make:idempotency-table', group: 'Generators', description: 'Migration of the idempotency_keys table (the idempotent middleware)', json: ['MakeMigrationsJson'] },
  args: {
    ...cwdArg,
    ...jsonArg,
    force: { type: 'boolean', description: 'Overwrite the migration if the app already has it' },
  },
  run({ args, io, json }) {
    const result = writeMigrationFiles(projectFor(io, args.cwd), [IDEMPOTENCY_MIGRATION_SOURCE], 'make:idempotency-table', args.force)
    if (args.json) return json(result)
    for (const file of result.written) printLine(io, `Created ${file}`)
    for (const file of result.skipped) printLine(io, `Exists  ${file} (--force overwrites)`)
    printNote(io, "Next: svc migrate, then add 'idempotent' to a POST route's middleware (after 'auth').")
  },
})
