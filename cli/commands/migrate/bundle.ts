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
    if (args.json) {
      // A verdict, as env:check's: the one document says it (stale: true), the exit code too. It used to be
      // followed by E_BUNDLE_STALE's CliErrorJson, two documents on stdout that no JSON reader takes.
      if (stale && args.check) io.exitCode = 1
      return json({ file: bundle.file, migrations: bundle.migrations, stale, written })
    }
    if (stale && args.check) {
      throw new CliError('E_BUNDLE_STALE', `${bundle.file} does not list the migrations in its folder`, { hint: 'run svc migrate:bundle' })
    }
    printLine(io, written ? `Wrote ${bundle.file} (${bundle.migrations.length} migrations).` : `${bundle.file} is up to date (${bundle.migrations.length} migrations).`)
  },
})
