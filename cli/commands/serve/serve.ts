import { existsSync } from 'node:fs'
import { ensureEnvFile, serve } from '../../../framework/node/index.ts'
import { migrate } from '../../../framework/index.ts'
import { defineCommand } from '../../command/define.ts'
import { refuseInProduction, serveMigrateGuard } from '../../database/production.ts'
import { cwdArg } from '../../output/args.ts'
import { CliError } from '../../output/cli-error.ts'
import { printLine, printNote } from '../../output/print.ts'
import { loadApp } from '../../project/load-app.ts'
import { loadMigrations } from '../../project/migrations.ts'
import { projectFor } from '../../project/project.ts'
import { DEBUG_IN_PRODUCTION } from '../../server/production-notes.ts'
import { withRequestLog } from '../../server/request-log.ts'
import { projectTraceConfig } from '../../trace/open-store.ts'
import { DRAIN } from '../../server/worker.ts'

export default defineCommand({
  meta: { name: 'serve', group: 'Server', description: 'Serve the app over HTTP (development server)' },
  args: {
    ...cwdArg,
    port: { type: 'number', description: 'Port to listen on (0 picks a free one; default PORT or 8080)', valueHint: 'port', integer: true, min: 0, max: 65535 },
    host: { type: 'string', description: 'Address to bind (default HOST or 127.0.0.1)', valueHint: 'address' },
    migrate: { type: 'boolean', description: 'Run pending migrations first (in production only with --force)' },
    force: { type: 'boolean', description: 'With --migrate: migrate in production too (APP_ENV=production)' },
    quiet: { type: 'boolean', description: 'No line per request (development logs each one)' },
  },
  async run({ args, io }) {
    const project = projectFor(io, args.cwd)
    if (args.migrate) refuseInProduction(project, serveMigrateGuard(args.force))
    if (!existsSync(project.envFile) && project.env.APP_ENV !== 'production') {
      if (ensureEnvFile(project.envFile, project.envExampleFile)) {
        printNote(io, `Created ${project.envFile} with a fresh JWT_SECRET (development settings).`)
      }
    }
    const loaded = await loadApp(project, { serving: true })
    if (loaded.config.env === 'production' && loaded.config.debug) printNote(io, DEBUG_IN_PRODUCTION)
    if (args.migrate) {
      let ran: string[]
      try {
        ran = await migrate(loaded.database!, await loadMigrations(project))
      } catch (error) {
        await loaded.close()
        if (error instanceof CliError) throw error
        // A libSQL server out of reach says only "fetch failed": which database, and where to look, is said here.
        if (error instanceof Error && error.name === 'MigrationError') throw new CliError('E_MIGRATION', error.message, { hint: 'fix the migration and run svc serve --migrate again; the ones before it stay applied', cause: error })
        throw new CliError('E_DATABASE', `Cannot migrate the database: ${(error as Error).message}`, {
          hint: 'check DATABASE_URL (and DATABASE_AUTH_TOKEN for a libsql:// server); svc doctor checks the connection',
        })
      }
      if (ran.length > 0) printNote(io, `Migrated: ${ran.join(', ')}`)
    }
    const port = args.port ?? loaded.config.port
    const logged = !args.quiet && loaded.config.env === 'development'
    let server
    try {
      server = await serve(logged ? withRequestLog(loaded.app, io, projectTraceConfig(project, loaded.config)) : loaded.app, { port, host: args.host ?? loaded.config.host, onClose: loaded.close })
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
