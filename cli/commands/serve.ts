import { defineCommand } from 'citty'
import { existsSync } from 'node:fs'
import { ensureEnvFile, serve } from '../../framework/node/index.ts'
import { migrate } from '../../framework/index.ts'
import { cwdArg, intOption } from '../output/args.ts'
import { CliError } from '../output/cli-error.ts'
import { printLine, printNote } from '../output/print.ts'
import { loadApp } from '../project/load-app.ts'
import { loadMigrations } from '../project/migrations.ts'
import { findProject } from '../project/project.ts'

export default defineCommand({
  args: {
    ...cwdArg,
    port: { type: 'string', description: 'Port to listen on (0 picks a free one; default PORT or 8080)' },
    host: { type: 'string', description: 'Address to bind (default HOST or 127.0.0.1)' },
    migrate: { type: 'boolean', description: 'Run pending migrations first', default: false },
  },
  async run({ args }) {
    const project = findProject(args.cwd)
    if (!existsSync(project.envFile) && process.env.APP_ENV !== 'production') {
      if (ensureEnvFile(project.envFile, project.envExampleFile)) {
        printNote(`Created ${project.envFile} with a fresh JWT_SECRET (development settings).`)
      }
    }
    const loaded = await loadApp(project)
    if (args.migrate) {
      const ran = await migrate(loaded.database!, await loadMigrations(project))
      if (ran.length > 0) printNote(`Migrated: ${ran.join(', ')}`)
    }
    const port = intOption('port', args.port, loaded.config.port)
    let server
    try {
      server = await serve(loaded.app, { port, host: args.host ?? loaded.config.host, onClose: loaded.close })
    } catch (error) {
      await loaded.close()
      throw new CliError('E_LISTEN', `Cannot listen on port ${port}: ${(error as Error).message}`, {
        hint: 'pick another port with --port (0 chooses a free one)',
      })
    }
    const stop = (signal: string) => {
      printNote(`${signal}: finishing in-flight requests...`)
      server.close().then(
        () => process.exit(0),
        (error: unknown) => {
          printNote(`error while stopping: ${(error as Error).message}`)
          process.exit(1)
        },
      )
    }
    process.once('SIGINT', () => stop('SIGINT'))
    process.once('SIGTERM', () => stop('SIGTERM'))
    // Announced only once the signal handlers are in place: whoever waits for
    // this line may stop the server right after reading it.
    printLine(`svc listening on ${server.url} (${loaded.config.env})`)
  },
})
