import { defineCommand } from '../../command/define.ts'
import { CliError } from '../../output/cli-error.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { printLine } from '../../output/print.ts'
import { bundleIsStale, migrationBundle, writeBundle } from '../../project/migration-bundle.ts'
import { projectFor } from '../../project/project.ts'

export default defineCommand({
  meta: {
    name: 'migrate:bundle',
    group: 'Database',
    description: 'Write database/migrations/index.ts, the migrations as one module (Workers, Deno and Bun entries import it)',
    json: ['MigrationBundleJson'],
  },
  args: {
    ...cwdArg,
    ...jsonArg,
    check: { type: 'boolean', description: 'Write nothing; exit 1 when the module is out of date' },
  },
  async run({ args, io, json }) {
    const bundle = migrationBundle(projectFor(io, args.cwd))
    const stale = bundleIsStale(bundle)
    const written = stale && !args.check
    if (written) writeBundle(bundle)
    if (args.json) json({ file: bundle.file, migrations: bundle.migrations, stale, written })
    if (stale && args.check) {
      throw new CliError('E_BUNDLE_STALE', `${bundle.file} does not list the migrations in its folder`, { hint: 'run svc migrate:bundle' })
    }
    if (args.json) return
    printLine(io, written ? `Wrote ${bundle.file} (${bundle.migrations.length} migrations).` : `${bundle.file} is up to date (${bundle.migrations.length} migrations).`)
  },
})
