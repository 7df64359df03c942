import { join } from 'node:path'
import { defineCommand } from '../../command/define.ts'
import { refuseInProduction, serveMigrateGuard } from '../../database/production.ts'
import { cwdArg } from '../../output/args.ts'
import { colors, printLine, printNote } from '../../output/print.ts'
import { loadConfig } from '../../project/load-app.ts'
import { pretranspile } from '../../project/import-file.ts'
import { projectFor } from '../../project/project.ts'
import { WorkerCluster, WorkerStartError } from '../../server/cluster.ts'
import { debounce, displayPath, watchSources, type WatchTarget } from '../../server/watch.ts'

/** The example's port for `svc live` (the specification's), beside `svc serve`'s 8080. */
const LIVE_PORT = 9090

export default defineCommand({
  meta: { name: 'live', group: 'Server', description: 'Development server that restarts when the app\'s files change' },
  args: {
    ...cwdArg,
    port: { type: 'number', description: 'Port to listen on (0 picks a free one)', valueHint: 'port', integer: true, min: 0, max: 65535, default: LIVE_PORT },
    host: { type: 'string', description: 'Address to bind (default HOST or 127.0.0.1)', valueHint: 'address' },
    migrate: { type: 'boolean', description: 'Run pending migrations at every start (a new migration file applies itself; in production only with --force)' },
    force: { type: 'boolean', description: 'With --migrate: migrate in production too (APP_ENV=production)' },
    quiet: { type: 'boolean', description: 'No line per request' },
    debounce: { type: 'number', description: 'Wait this long after the last change before restarting', valueHint: 'ms', integer: true, min: 0, max: 10_000, default: 100 },
  },
  async run({ args, io }) {
    const project = projectFor(io, args.cwd)
    // Said once here, rather than by every worker the watcher starts.
    if (args.migrate) refuseInProduction(project, serveMigrateGuard(args.force))
    const host = args.host ?? loadConfig(project).host
    const color = colors(io)
    const workers = new WorkerCluster({
      io,
      size: 1,
      port: args.port,
      cwd: project.root,
      replaceCrashed: false,
      announce: false,
      handover: 'stop',
      args: (port) => ['serve', '--cwd', project.root, '--port', String(port), '--host', host, ...(args.migrate ? ['--migrate'] : []), ...(args.force ? ['--force'] : []), ...(args.quiet ? ['--quiet'] : [])],
    })
    const url = () => `http://${host.includes(':') ? `[${host}]` : host}:${workers.port}`
    const targets: WatchTarget[] = [
      ...['routes', 'app', 'config', join('database', 'migrations')].map((dir) => ({ dir: join(project.appDir, dir) })),
      { dir: project.root, only: ['.env'] },
    ]

    const stopped = new Promise<unknown>((resolve) => io.signal.addEventListener('abort', () => resolve(io.signal.reason), { once: true }))
    let serving = await startOrReport(workers)
    const restart = debounce(args.debounce, (files, firstSeen) => {
      const names = files.map((file) => displayPath(project.root, file))
      const shown = names.length === 1 ? names[0] : `${names[0]} and ${names.length - 1} more`
      printLine(io, color.dim(`change: ${shown}, restarting...`))
      pretranspile(files, project.storageDir)
      void workers.reload().then((ok) => {
        if (io.signal.aborted) return
        if (ok) printLine(io, `${serving ? 'restarted' : 'started'} in ${Math.round(performance.now() - firstSeen)} ms: svc live listening on ${url()}`)
        else printLine(io, serving ? color.yellow('The new code does not start (error above): still serving the previous version; fix it and save.') : color.yellow('The app does not start (error above); fix it and save.'))
        serving ||= ok
      })
    })
    const watcher = watchSources(targets, (file) => restart.add(file))
    // The transpiler is loaded here once, while the developer reads the first page, not at the first change.
    const warm = setTimeout(() => pretranspile([], project.storageDir), 200)
    if (serving) printLine(io, `svc live listening on ${url()} (restarts on changes to routes/, app/, config/, database/migrations/ and .env)`)
    else printLine(io, color.yellow('The app does not start (error above): watching for changes.'))

    const reason = await stopped
    clearTimeout(warm)
    restart.cancel()
    watcher.close()
    printNote(io, `${typeof reason === 'string' ? reason : 'Stopping'}: finishing in-flight requests...`)
    await workers.stop()
  },
})

/** The first start: a worker that fails (a syntax error) is reported and the watch goes on. */
async function startOrReport(workers: WorkerCluster): Promise<boolean> {
  try {
    await workers.start()
    return true
  } catch (error) {
    if (error instanceof WorkerStartError) return false
    throw error
  }
}
