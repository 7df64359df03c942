/**
 * `queue:work --daemon`: the same worker (or supervisor, with --workers) in
 * the background, detached from the terminal; its output goes to
 * storage/logs/queue.log, its pid to storage/queue-worker.pid. `kill <pid>`
 * (SIGTERM) stops it after the current jobs. One daemon per app at a time.
 */
import { spawn } from 'node:child_process'
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { CliError } from '../output/cli-error.ts'
import type { CommandIO } from '../output/io.ts'
import type { Project } from '../project/project.ts'
import { childEntry } from './supervisor.ts'

export function daemonFiles(project: Project): { pidFile: string; logFile: string } {
  return { pidFile: join(project.storageDir, 'queue-worker.pid'), logFile: join(project.storageDir, 'logs', 'queue.log') }
}

/** The daemon's pid when one runs for this app. */
export function runningDaemon(project: Project): number | undefined {
  const { pidFile } = daemonFiles(project)
  if (!existsSync(pidFile)) return undefined
  const pid = Number(readFileSync(pidFile, 'utf8').trim())
  if (!Number.isSafeInteger(pid) || pid <= 0 || !alive(pid)) return undefined
  return pid
}

export function startDaemon(project: Project, workArgs: string[], io: CommandIO): { pid: number; logFile: string; pidFile: string } {
  const running = runningDaemon(project)
  const { pidFile, logFile } = daemonFiles(project)
  if (running !== undefined) {
    throw new CliError('E_QUEUE_RUNNING', `A queue worker daemon already runs for this app (pid ${running})`, { hint: `stop it first: kill ${running}` })
  }
  mkdirSync(dirname(logFile), { recursive: true })
  const log = openSync(logFile, 'a')
  const entry = childEntry()
  try {
    const child = spawn(process.execPath, [...entry.execArgv, entry.modulePath, ...workArgs], {
      cwd: io.cwd,
      env: { ...io.env, NO_COLOR: '1' },
      detached: true,
      stdio: ['ignore', log, log],
    })
    child.unref()
    if (child.pid === undefined) throw new CliError('E_QUEUE_DAEMON', 'Could not start the queue worker in the background')
    writeFileSync(pidFile, `${child.pid}\n`)
    // The pid file goes when the daemon ends, if this process is still there to see it.
    child.once('exit', () => {
      if (runningDaemon(project) === undefined) rmSync(pidFile, { force: true })
    })
    return { pid: child.pid, logFile, pidFile }
  } finally {
    closeSync(log)
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
