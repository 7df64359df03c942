/**
 * The production server's pid file (`<storage>/serve-prod.pid`): how
 * `svc serve:prod --reload` (and `svc deploy`'s reload step) find the running
 * supervisor to send it SIGHUP. A stale file (the process is gone, or the pid
 * was reused by another program) is ignored.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { Project } from '../project/project.ts'

export function serverPidPath(project: Project): string {
  return join(project.storageDir, 'serve-prod.pid')
}

/** Names this process as the running server; returns its pid. */
export function writePidFile(path: string): number {
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, `${process.pid}\n`)
  return process.pid
}

/** Removes the file if it still names `pid` (a newer server may have replaced it). */
export function removePidFile(path: string, pid: number): void {
  if (readPid(path) === pid) rmSync(path, { force: true })
}

/** Sends the running server SIGHUP (its workers reload one by one); returns its pid, or undefined when none runs. */
export function reloadRunningServer(path: string): number | undefined {
  const pid = runningServerPid(path)
  if (pid !== undefined) process.kill(pid, 'SIGHUP')
  return pid
}

/** The pid of the running production server, or undefined. */
export function runningServerPid(path: string): number | undefined {
  const pid = readPid(path)
  if (pid === undefined || !isAlive(pid)) return undefined
  // Where the platform says what a process runs (Linux), make sure it is a svc server, not a reused pid.
  const cmdline = `/proc/${pid}/cmdline`
  if (existsSync(cmdline) && !/serve:prod|frankenphp:serve/.test(readFileSync(cmdline, 'utf8'))) return undefined
  return pid
}

function readPid(path: string): number | undefined {
  if (!existsSync(path)) return undefined
  const pid = Number(readFileSync(path, 'utf8').trim())
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
