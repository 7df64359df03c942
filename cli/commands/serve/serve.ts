import { existsSync } from 'node:fs'
import { relative } from 'node:path'
import { databaseUrl, serve } from '../../../framework/node/index.ts'
import { migrate, migrationStatus, type App, type AppConfig } from '../../../framework/index.ts'
import { text } from '../../../framework/config/env-readers.ts'
import { pendingApp, servedUrl } from '../../../framework/app/listen-first.ts'
import { defineCommand } from '../../command/define.ts'
import { diskFullHint, isDiskFull } from '../../database/disk-full.ts'
import { refuseInProduction, serveMigrateGuard } from '../../database/production.ts'
import { cwdArg } from '../../output/args.ts'
import { CliError } from '../../output/cli-error.ts'
import type { CommandIO } from '../../output/io.ts'
import { printLine, printNote } from '../../output/print.ts'
import { createEnvFileIfMissing } from '../../project/first-env.ts'
import { databaseWhere, loadApp, loadConfig, type LoadedApp } from '../../project/load-app.ts'
import { loadMigrations } from '../../project/migrations.ts'
import { projectFor, type Project } from '../../project/project.ts'
import { DEBUG_IN_PRODUCTION } from '../../server/production-notes.ts'
import { withRequestLog } from '../../server/request-log.ts'
import { projectTraceConfig } from '../../trace/open-store.ts'
import { DRAIN, SUPERVISED_ENV } from '../../server/worker.ts'

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
    createEnvFileIfMissing(project, io)
    const settings = loadConfig(project)
    const newDatabase = missingDatabaseFile(project, settings)
    const port = args.port ?? settings.port
    const host = args.host ?? settings.host
    // With APP_URL unset, the links in mails point where this server listens (docs/configuration.md).
    // On port 0 that is known once it listens, so it listens first (requests meanwhile wait for the app);
    // a supervised worker must not (its supervisor counts it started once it listens), nor need it: it is given a port.
    const followServer = text(settings.vars, 'APP_URL') === undefined
    const listenFirst = followServer && port === 0 && io.env[SUPERVISED_ENV] !== '1'
    let loaded: LoadedApp | undefined
    const load = async (url: string | undefined): Promise<LoadedApp> => {
      loaded = await loadApp(project, { serving: true, overrides: url === undefined ? {} : { APP_URL: url } })
      if (loaded.config.env === 'production' && loaded.config.debug) printNote(io, DEBUG_IN_PRODUCTION)
      if (newDatabase !== undefined && !args.migrate) {
        printNote(
          io,
          `${newDatabase} did not exist: svc serve created it empty, without tables (was storage/ deleted, or its volume not mounted?). ` +
            `The routes that use a table answer 500 until svc migrate${loaded.config.env === 'production' ? ' --force' : ''} runs.`,
        )
      }
      if (args.migrate) await migrateFirst(project, loaded, io)
      else await notePending(project, loaded, io)
      return loaded
    }
    const ready = (app: LoadedApp): Pick<App, 'fetch' | 'reject'> =>
      !args.quiet && app.config.env === 'development' ? withRequestLog(app.app, io, projectTraceConfig(project, app.config)) : app.app
    // A request that waits for an app that failed to load gets the adapter's 500.
    const pending = pendingApp()
    if (!listenFirst) {
      try {
        pending.ready(ready(await load(followServer && port !== 0 ? servedUrl(host, port) : undefined)))
      } catch (error) {
        await loaded?.close()
        throw error
      }
    }
    let server
    try {
      server = await serve(
        {
          fetch: pending.fetch,
          // Before the app is loaded, serve answers a malformed request with its own envelope.
          get reject() {
            return pending.reject
          },
          config: settings,
        },
        { port, host, onClose: () => loaded?.close() },
      )
    } catch (error) {
      await loaded?.close()
      throw listenError(error, host, port)
    }
    if (listenFirst) {
      try {
        pending.ready(ready(await load(servedUrl(server.host, server.port))))
      } catch (error) {
        pending.failed(error)
        await server.close()
        throw error
      }
    }
    // Announced once stopping is wired: whoever waits for this line may stop the server right after reading it.
    const stopped = new Promise<unknown>((resolve) => io.signal.addEventListener('abort', () => resolve(io.signal.reason), { once: true }))
    printLine(io, `svc listening on ${server.url} (${settings.env})`)
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

async function migrateFirst(project: Project, loaded: LoadedApp, io: CommandIO): Promise<void> {
  let ran: string[]
  try {
    ran = await migrate(loaded.database!, await loadMigrations(project))
  } catch (error) {
    if (error instanceof CliError) throw error
    // A libSQL server out of reach says only "fetch failed": which database, and where to look, is said here.
    const retry = 'run svc serve --migrate again; the ones before it stay applied'
    if (error instanceof Error && error.name === 'MigrationError') {
      const hint = isDiskFull(error) ? diskFullHint(databaseWhere(project, loaded.config), retry) : `fix the migration and ${retry}`
      throw new CliError('E_MIGRATION', error.message, { hint, cause: error })
    }
    throw new CliError('E_DATABASE', `Cannot migrate the database: ${(error as Error).message}`, {
      hint: 'check DATABASE_URL (and DATABASE_AUTH_TOKEN for a libsql:// server); svc doctor checks the connection',
    })
  }
  if (ran.length > 0) printNote(io, `Migrated: ${ran.join(', ')}`)
}

/**
 * Pending migrations, said at start: their tables do not exist yet, so the routes that use them answer 500
 * (`no such table`) until `svc migrate`. In production too (a deploy whose migrate step did not run is the
 * case that costs most), with the production fix; reading the status only reads (no migrations table is made).
 * A database that cannot be read is left to the requests.
 */
async function notePending(project: Project, loaded: LoadedApp, io: CommandIO): Promise<void> {
  if (loaded.database === undefined) return
  let pending: string[]
  try {
    pending = (await migrationStatus(loaded.database, await loadMigrations(project))).filter((status) => status.batch === null).map((status) => status.name)
  } catch {
    return
  }
  if (pending.length === 0) return
  const shown = pending.length > 3 ? `${pending.slice(0, 3).join(', ')} and ${pending.length - 3} more` : pending.join(', ')
  const fix = loaded.config.env === 'production' ? 'svc migrate --force (the deploy step)' : 'svc migrate (or serve with --migrate, as npm start does)'
  printNote(io, `${pending.length} migration(s) pending (${shown}): the routes using their tables answer 500 until you run ${fix}.`)
}

/**
 * Why the server could not listen, with the fix for that cause: every failure used to say "pick another
 * port", also for a HOST that is no address of this machine (`getaddrinfo ENOTFOUND`, `EADDRNOTAVAIL`).
 */
export function listenError(error: unknown, host: string, port: number): CliError {
  const code = (error as { code?: unknown }).code
  const message = (error as Error).message
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EADDRNOTAVAIL' || code === 'EAFNOSUPPORT') {
    return new CliError('E_LISTEN', `Cannot listen on ${host}: ${message}`, {
      hint: 'HOST (or --host) must be an address of this machine: 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)',
    })
  }
  return new CliError('E_LISTEN', `Cannot listen on port ${port}: ${message}`, { hint: 'pick another port with --port (0 chooses a free one)' })
}

/**
 * The database file (DATABASE_URL `file:`, or the default one) when it does not exist yet: opening it creates
 * it empty, and a server on an empty database answered 500 `no such table` with nothing said at start in
 * production (a deleted storage/, a volume not mounted, a deploy that skipped its migrate step).
 */
function missingDatabaseFile(project: Project, config: AppConfig): string | undefined {
  const url = databaseUrl(config.databaseUrl, { storageDir: project.storageDir, projectDir: project.root })
  if (!url.startsWith('file:')) return undefined
  const path = url.slice('file:'.length)
  // `:memory:` and friends are no file to find.
  if (path.startsWith(':') || existsSync(path)) return undefined
  return relative(project.root, path) || path
}

