import { existsSync, writeFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import { defineCommand } from '../../command/define.ts'
import { cwdArg } from '../../output/args.ts'
import { CliError } from '../../output/cli-error.ts'
import { printLine, printNote } from '../../output/print.ts'
import { loadConfig } from '../../project/load-app.ts'
import { DEBUG_IN_PRODUCTION } from '../../server/production-notes.ts'
import { projectFor } from '../../project/project.ts'
import { WorkerCluster, WorkerStartError } from '../../server/cluster.ts'
import { dockerFiles } from '../../server/docker.ts'
import { reloadRunningServer, removePidFile, serverPidPath, writePidFile } from '../../server/pid-file.ts'

export default defineCommand({
  meta: {
    name: 'serve:prod',
    alias: 'frankenphp:serve',
    group: 'Server',
    description: 'Production server: worker processes on one port, a dead one replaced, reloaded one by one on SIGHUP; frankenphp:serve is the specification\'s name for it',
  },
  args: {
    ...cwdArg,
    workers: { type: 'number', description: 'Worker processes (default: the number of CPUs)', valueHint: 'n', integer: true, min: 1, max: 256 },
    port: { type: 'number', description: 'Port to listen on (0 picks a free one; default PORT or 8080)', valueHint: 'port', integer: true, min: 0, max: 65535 },
    host: { type: 'string', description: 'Address to bind (default HOST or 127.0.0.1; 0.0.0.0 in a container)', valueHint: 'address' },
    reload: { type: 'boolean', description: 'Send the running production server SIGHUP, then exit' },
    docker: { type: 'boolean', description: 'Write a Dockerfile and a .dockerignore for the project, then exit' },
    force: { type: 'boolean', description: 'With --docker: overwrite existing files' },
  },
  async run({ args, io }) {
    const project = projectFor(io, args.cwd)
    const config = loadConfig(project)
    const port = args.port ?? config.port
    const pidFile = serverPidPath(project)

    if (args.docker) {
      const files = dockerFiles(project, port === 0 ? 8080 : port)
      const targets = [join(project.root, 'Dockerfile'), join(project.root, '.dockerignore')]
      const existing = targets.filter((file) => existsSync(file))
      if (existing.length > 0 && !args.force) {
        throw new CliError('E_EXISTS', `${existing.join(' and ')} already exist${existing.length === 1 ? 's' : ''}`, { hint: 'add --force to overwrite' })
      }
      writeFileSync(targets[0]!, files.dockerfile)
      writeFileSync(targets[1]!, files.dockerignore)
      for (const file of targets) printLine(io, `Wrote ${file}`)
      for (const { name, spec } of files.outsideContext) {
        printNote(
          io,
          `warning: ${name} is installed from "${spec}", outside the build context: docker build cannot install it. Pack it into the project (npm pack <its folder>, then npm install ./<the .tgz>; docs/getting-started.md) and build again.`,
        )
      }
      printNote(io, 'docker build -t app . && docker run --env-file .env.production -p 8080:8080 app (secrets stay out of the image).')
      return
    }

    if (args.reload) {
      const pid = reloadRunningServer(pidFile)
      if (pid === undefined) return printLine(io, `No production server is running for ${project.root}: nothing to reload.`)
      printLine(io, `Sent SIGHUP to the production server (pid ${pid}): its workers reload one by one.`)
      return
    }

    if (config.env !== 'production') printNote(io, `APP_ENV is ${config.env}: set APP_ENV=production for production (debug off, secure defaults).`)
    else if (config.debug) printNote(io, DEBUG_IN_PRODUCTION)
    const host = args.host ?? config.host
    const size = args.workers ?? availableParallelism()
    const workers = new WorkerCluster({
      io,
      size,
      port,
      cwd: project.root,
      replaceCrashed: true,
      handover: 'drain',
      args: (workerPort) => ['serve', '--cwd', project.root, '--port', String(workerPort), '--host', host, '--quiet'],
    })
    try {
      await workers.start()
    } catch (error) {
      if (error instanceof WorkerStartError) {
        throw new CliError('E_WORKER_START', `The app did not start: ${error.message}`, { hint: 'the error is printed above; svc serve shows it in a single process' })
      }
      throw error
    }
    const pid = writePidFile(pidFile)
    const stopHangup = io.onHangup(() => {
      printNote(io, 'SIGHUP: reloading the workers one by one...')
      void workers.reload().then((ok) => printNote(io, ok ? 'Reloaded: every worker runs the current code.' : 'Reload stopped: a new worker did not start (error above); the others keep serving.'))
    })
    const stopped = new Promise<unknown>((resolve) => io.signal.addEventListener('abort', () => resolve(io.signal.reason), { once: true }))
    const url = `http://${host.includes(':') ? `[${host}]` : host}:${workers.port}`
    printLine(io, `svc serve:prod listening on ${url} (${config.env}, ${size} worker${size === 1 ? '' : 's'}, supervisor pid ${pid})`)
    const reason = await stopped
    stopHangup()
    printNote(io, `${typeof reason === 'string' ? reason : 'Stopping'}: the workers finish their in-flight requests...`)
    await workers.stop()
    removePidFile(pidFile, pid)
  },
})
