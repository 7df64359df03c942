import { defineCommand } from '../../command/define.ts'
import { CliError } from '../../output/cli-error.ts'
import { cwdArg } from '../../output/args.ts'
import { printLine } from '../../output/print.ts'
import { findCommand } from '../../project/find-command.ts'
import { createEnvFileIfMissing } from '../../project/first-env.ts'
import { bundleIsStale, migrationBundle, writeBundle } from '../../project/migration-bundle.ts'
import { projectFor } from '../../project/project.ts'

interface Runtime {
  /** What the scripts call, by name. */
  command: string
  name: string
  /** What of a new project runs it. */
  usage: string
  install: string
  /** Reads `.env` (Deno, Bun), which is then made as `svc serve` makes it; wrangler reads `.dev.vars`. */
  readsEnvFile: boolean
}

/** The runtimes of a new project's scripts (docs/runtimes.md, "A project of your own"); each is installable from npm. */
const RUNTIMES: Record<'deno' | 'bun' | 'workers', Runtime> = {
  deno: { command: 'deno', name: 'Deno', usage: 'npm run start:deno serves the app with it', install: 'npm install -D deno (or install Deno: https://docs.deno.com/runtime/getting_started/installation/)', readsEnvFile: true },
  bun: { command: 'bun', name: 'Bun', usage: 'npm run start:bun serves the app with it', install: 'npm install -D bun (or install Bun: https://bun.sh)', readsEnvFile: true },
  workers: { command: 'wrangler', name: 'wrangler (Cloudflare Workers)', usage: 'npm run dev:workers and deploy:workers run it', install: 'npm install -D wrangler (wrangler 4 needs Node 22 or later)', readsEnvFile: false },
}

export default defineCommand({
  meta: {
    name: 'runtime:prepare',
    group: 'Server',
    description: "Before a new project's start:deno, start:bun or dev:workers: check the runtime is installed, make .env as svc serve does, write the migrations module",
  },
  args: {
    ...cwdArg,
    runtime: { type: 'positional', description: 'The runtime the script starts', options: ['deno', 'bun', 'workers'], valueHint: 'runtime' },
  },
  async run({ args, io }) {
    const project = projectFor(io, args.cwd)
    const runtime = RUNTIMES[args.runtime]
    // npm puts node_modules/.bin on the PATH it gives the script: found here as the next command of the script finds it.
    if (findCommand(runtime.command, io.env) === undefined) {
      throw new CliError('E_RUNTIME_MISSING', `${runtime.name} is not installed (\`${runtime.command}\` is neither on PATH nor in node_modules/.bin), and ${runtime.usage}`, {
        hint: runtime.install,
      })
    }
    if (runtime.readsEnvFile) createEnvFileIfMissing(project, io)
    // As svc migrate:bundle: a migration added since (svc make:crud) is in the module the entry imports.
    const bundle = migrationBundle(project)
    if (!bundleIsStale(bundle)) return
    writeBundle(bundle)
    printLine(io, `Wrote ${bundle.file} (${bundle.migrations.length} migrations).`)
  },
})
