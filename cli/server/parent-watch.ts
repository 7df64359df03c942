/**
 * Stops a command that runs until stopped (serve, live, serve:prod,
 * queue:work, log:tail) when the package runner that started it goes away.
 * `npx svc serve` and `npm start` run svc under npm, which does not pass
 * SIGTERM on: a process manager, a test harness or an editor that stops
 * npm left `svc serve` running, holding its port. A terminal's Ctrl-C and
 * hang-up reach the whole process group and need none of this.
 *
 * Imports only node:fs: the binary reads it before it knows which command runs.
 */
import { readFileSync } from 'node:fs'

/** How often the parent is looked at: getppid() and a read of /proc/<parent>/stat, on an unref'd timer (it keeps no process alive). */
export const PARENT_CHECK_MS = 1000

/** The abort reason when the runner is gone; `serve` prints it before finishing its in-flight requests. */
export const PARENT_GONE = 'The process that started svc (npm, npx) is gone'

export interface ParentWatchOptions {
  env: NodeJS.ProcessEnv
  /** The parent's pid now (process.ppid; tests give their own). */
  parentPid?: () => number
  /** The parent of a process (tests give their own). */
  parentOf?: (pid: number) => number | undefined
  /** Whether this process leads its own session (tests give their own). */
  leadsSession?: () => boolean
  everyMs?: number
}

/**
 * Calls `onGone` once the parent this process had at start is gone (the
 * process was handed to another: init, or a subreaper), or its grandparent
 * is: npm runs a script through `sh -c`, and a shell whose npm was killed
 * with SIGKILL stays, waiting for svc. Only when started by a package runner
 * (npm, npx, yarn, pnpm and bun set `npm_config_user_agent`) and not as the
 * child of pid 1: a process started from a shell (`nohup svc serve &`
 * included) or by a service manager (systemd, Docker's init: pid 1) is left
 * to it, as it means to outlive whatever started it, or stops it with a
 * signal; so is one started detached, in a session of its own (the daemon
 * of `queue:work --daemon`, which inherits npm's environment). Returns the stop of the watch, or undefined when there is none.
 */
export function watchParent(onGone: () => void, options: ParentWatchOptions): (() => void) | undefined {
  const parentPid = options.parentPid ?? (() => process.ppid)
  const started = parentPid()
  if (started <= 1 || !options.env.npm_config_user_agent) return undefined
  // Started in a session of its own (`queue:work --daemon`, `setsid svc serve`): it was meant to outlive its parent.
  if ((options.leadsSession ?? leadsSession)()) return undefined
  const readParent = options.parentOf ?? parentOf
  // The grandparent is gone when the parent is handed to another: read so, a grandparent that is gone but not
  // yet reaped (a zombie, which kill(pid, 0) finds) counts as gone, and a pid used again does not count as it.
  const grandparent = readParent(started)
  const watchGrandparent = grandparent !== undefined && grandparent > 1
  const timer = setInterval(() => {
    if (parentPid() === started && (!watchGrandparent || readParent(started) === grandparent)) return
    clearInterval(timer)
    onGone()
  }, options.everyMs ?? PARENT_CHECK_MS)
  timer.unref()
  return () => clearInterval(timer)
}

/** The parent of process `pid` (Linux: /proc), undefined where it cannot be read. */
export function parentOf(pid: number): number | undefined {
  try {
    // `pid (comm) state ppid ...`: comm may hold spaces and parentheses, so the fields are read after the last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
    return Number.isInteger(ppid) ? ppid : undefined
  } catch {
    return undefined
  }
}

/** Whether this process leads its own session (setsid: a detached child, a daemon). Linux: /proc; elsewhere false. */
function leadsSession(): boolean {
  try {
    // `pid (comm) state ppid pgrp session ...`
    const stat = readFileSync('/proc/self/stat', 'utf8')
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[3]) === process.pid
  } catch {
    return false
  }
}
