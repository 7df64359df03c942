import { existsSync } from 'node:fs'
import { ensureEnvFile, serve } from '../../../framework/node/index.ts'
import { migrate } from '../../../framework/index.ts'
import { defineCommand } from '../../command/define.ts'
import { cwdArg } from '../../output/args.ts'
import { CliError } from '../../output/cli-error.ts'
import { printLine, printNote } from '../../output/print.ts'
import { loadApp } from '../../project/load-app.ts'
import { loadMigrations } from '../../project/migrations.ts'
import { projectFor } from '../../project/project.ts'
import { withRequestLog } from '../../server/request-log.ts'
import { DRAIN } from '../../server/worker.ts'

export default defineCommand({
  meta: { name: 'serve', group: 'Server', description: 'Serve the app over HTTP (development server)' },
  args: {
    ...cwdArg,
    port: { type: 'number', description: 'Port to listen on (0 picks a free one; default PORT or 8080)', valueHint: 'port', integer: true, min: 0, max: 65535 },
    host: { type: 'string', description: 'Address to bind (default HOST or 127.0.0.1)', valueHint: 'address' },
    migrate: { type: 'boolean', description: 'Run pending migrations first' },
    quiet: { type: 'boolean', description: 'No line per request (development logs each one)' },
  },
  async run({ args, io }) {
    const project = projectFor(io, args.cwd)
    if (!existsSync(project.envFile) && project.env.APP_ENV !== 'production') {
      if (ensureEnvFile(project.envFile, project.envExampleFile)) {
        printNote(io, `Created ${project.envFile} with a fresh JWT_SECRET (development settings).`)
      }
    }
    const loaded = await loadApp(project, { serving: true })
    if (args.migrate) {
      const ran = await migrate(loaded.database!, await loadMigrations(project))
      if (ran.length > 0) printNote(io, `Migrated: ${ran.join(', ')}`)
    }
    const port = args.port ?? loaded.config.port
    const logged = !args.quiet && loaded.config.env === 'development'
    let server
    try {
      server = await serve(logged ? withRequestLog(loaded.app, io) : loaded.app, { port, host: args.host ?? loaded.config.host, onClose: loaded.close })
    } catch (error) {
      await loaded.close()
      throw new CliError('E_LISTEN', `Cannot listen on port ${port}: ${(error as Error).message}`, {
        hint: 'pick another port with --port (0 chooses a free one)',
      })
    }
    // Announced once stopping is wired: whoever waits for this line may stop the server right after reading it.
    const stopped = new Promise<unknown>((resolve) => io.signal.addEventListener('abort', () => resolve(io.signal.reason), { once: true }))
    printLine(io, `svc listening on ${server.url} (${loaded.config.env})`)
    const reason = await stopped
    // Handing over to another worker (svc live, serve:prod reload) is silent; a stop is said.
    if (reason !== DRAIN) printNote(io, `${typeof reason === 'string' ? reason : 'Stopping'}: finishing in-flight requests...`)
    try {
      await server.close({ drain: reason === DRAIN })
    } catch (error) {
      throw new CliError('E_STOP', `error while stopping: ${(error as Error).message}`)
    }
  },
})
