/**
 * `queue:work --daemon`: the same worker (or supervisor, with --workers) in
 * the background, detached from the terminal; its output goes to
 * storage/logs/queue.log, its pid to storage/queue-worker.pid. `kill <pid>`
 * (SIGTERM) stops it after the current jobs. One daemon per app at a time.
 *
 * The daemon removes its own pid file when it ends (stopped, or failing at
 * start-up): the command that started it has exited long before. A file left
 * by a daemon that could not remove it (SIGKILL, a power cut) blocks nothing:
 * its pid must be alive, and be a queue worker, to count.
 */
import { spawn } from 'node:child_process'
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { CliError } from '../output/cli-error.ts'
import type { CommandIO } from '../output/io.ts'
import type { Project } from '../project/project.ts'
import { childEntry } from './supervisor.ts'

/** Tells the daemon process which pid file is its own, to remove when it ends. */
export const DAEMON_PID_FILE_ENV = 'SVC_QUEUE_DAEMON_PID_FILE'

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
      env: { ...io.env, NO_COLOR: '1', [DAEMON_PID_FILE_ENV]: pidFile },
      detached: true,
      stdio: ['ignore', log, log],
    })
    child.unref()
    if (child.pid === undefined) throw new CliError('E_QUEUE_DAEMON', 'Could not start the queue worker in the background')
    // Written before the daemon has booted; it removes the file itself when it ends (releaseDaemonPidFile).
    writeFileSync(pidFile, `${child.pid}\n`)
    return { pid: child.pid, logFile, pidFile }
  } finally {
    closeSync(log)
  }
}

/**
 * In the daemon: removes the pid file `env` names when it still holds this
 * process's pid (a newer daemon's file is left alone).
 */
export function releaseDaemonPidFile(env: Readonly<Record<string, string | undefined>>, pid = process.pid): void {
  const pidFile = env[DAEMON_PID_FILE_ENV]
  if (pidFile === undefined || pidFile === '') return
  try {
    if (readFileSync(pidFile, 'utf8').trim() === String(pid)) rmSync(pidFile, { force: true })
  } catch {
    // Gone already (removed by hand, or by the command that started it seeing it end).
  }
}

/** Whether `pid` is a live queue worker: a dead pid, or one the system gave since to another program, is a stale file. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false
  }
  return isQueueWorker(pid)
}

/** What /proc says the process runs (Linux); where there is no /proc, a live pid is taken as the worker. */
function isQueueWorker(pid: number): boolean {
  const cmdline = `/proc/${pid}/cmdline`
  if (!existsSync('/proc/self/cmdline')) return true
  try {
    return readFileSync(cmdline, 'utf8').split('\0').includes('queue:work')
  } catch {
    return false
  }
}
