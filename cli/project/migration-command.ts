/**
 * The commands that write framework-defined migrations into an app
 * (`make:apikey-table`, `make:queue-table`, `make:idempotency-table`): the
 * same arguments, the same writer, the same report; only the tables differ.
 */
import { defineCommand } from '../command/define.ts'
import { cwdArg, jsonArg } from '../output/args.ts'
import type { MigrationSource } from './migration-file.ts'
import { projectFor } from './project.ts'
import { printMigrationFiles, writeMigrationFiles } from './write-migrations.ts'

export function migrationTableCommand(options: { name: string; description: string; sources: readonly MigrationSource[]; next: string }) {
  return defineCommand({
    meta: { name: options.name, group: 'Generators', description: options.description, json: ['MakeMigrationsJson'] },
    args: {
      ...cwdArg,
      ...jsonArg,
      force: { type: 'boolean', description: 'Overwrite the migration if the app already has it' },
    },
    async run({ args, io, json }) {
      const outcome = await writeMigrationFiles(projectFor(io, args.cwd, { forGenerators: true }), options.sources, options.name, args.force, new Date())
      if (args.json) return json(outcome.json)
      printMigrationFiles(io, outcome, options.next)
    },
  })
}
