import { defineCommand } from 'citty'
import { API_KEYS_MIGRATION_SOURCE } from '../../project/migration-file.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { printJson, printLine, printNote } from '../../output/print.ts'
import { findProject } from '../../project/project.ts'
import { writeMigrationFiles, type MakeMigrationsJson } from './_write-migrations.ts'

export type MakeApiKeyTableJson = MakeMigrationsJson

/** Writes the migration of the `api_keys` table (scoped keys for `apikey:<scope>`). */
export default defineCommand({
  args: {
    ...cwdArg,
    ...jsonArg,
    force: { type: 'boolean', description: 'Overwrite the migration if the app already has it', default: false },
  },
  run({ args }) {
    const project = findProject(args.cwd)
    const result = writeMigrationFiles(project, [API_KEYS_MIGRATION_SOURCE], 'make:apikey-table', args.force)
    if (args.json) return printJson(result satisfies MakeApiKeyTableJson)
    for (const file of result.written) printLine(`Created ${file}`)
    for (const file of result.skipped) printLine(`Exists  ${file} (--force overwrites)`)
    printNote('Next: svc migrate, then svc make:apikey <name> <scopes> <days>.')
  },
})
