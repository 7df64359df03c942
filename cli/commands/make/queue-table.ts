import { QUEUE_MIGRATION_SOURCE } from '../../../framework/queue/schema.ts'
import { defineCommand } from '../../command/define.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { printLine, printNote } from '../../output/print.ts'
import { projectFor } from '../../project/project.ts'
import { writeMigrationFiles } from '../../project/write-migrations.ts'

/** Writes the migration of the database queue driver's tables (`jobs`, `failed_jobs`). */
export default defineCommand({
  meta: { name: 'make:queue-table', group: 'Generators', description: 'Migration of the jobs and failed_jobs tables (database queue driver)', json: ['MakeMigrationsJson'] },
  args: {
    ...cwdArg,
    ...jsonArg,
    force: { type: 'boolean', description: 'Overwrite the migration if the app already has it' },
  },
  run({ args, io, json }) {
    const result = writeMigrationFiles(projectFor(io, args.cwd), [QUEUE_MIGRATION_SOURCE], 'make:queue-table', args.force)
    if (args.json) return json(result)
    for (const file of result.written) printLine(io, `Created ${file}`)
    for (const file of result.skipped) printLine(io, `Exists  ${file} (--force overwrites)`)
    printNote(io, 'Next: svc migrate, then svc queue:work.')
  },
})
