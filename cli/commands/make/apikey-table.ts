import { API_KEYS_MIGRATION_SOURCE } from '../../project/migration-file.ts'
import { defineCommand } from '../../command/define.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { printLine, printNote } from '../../output/print.ts'
import { projectFor } from '../../project/project.ts'
import { writeMigrationFiles } from '../../project/write-migrations.ts'

/** Writes the migration of the `api_keys` table (scoped keys for `apikey:<scope>`). */
export default defineCommand({
  meta: { name: 'make:apikey-table', group: 'Generators', description: 'Migration of the api_keys table (scoped API keys)', json: ['MakeMigrationsJson'] },
  args: {
    ...cwdArg,
    ...jsonArg,
    force: { type: 'boolean', description: 'Overwrite the migration if the app already has it' },
  },
  run({ args, io, json }) {
    const result = writeMigrationFiles(projectFor(io, args.cwd, { forGenerators: true }), [API_KEYS_MIGRATION_SOURCE], 'make:apikey-table', args.force)
    if (args.json) return json(result)
    for (const file of result.written) printLine(io, `Created ${file}`)
    for (const file of result.skipped) printLine(io, `Exists  ${file} (--force overwrites)`)
    printNote(io, 'Next: svc migrate, then svc make:apikey <name> <scopes> <days>.')
  },
})
