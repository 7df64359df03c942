/**
 * Maintenance mode on Node: the state file `svc down` writes, polled as
 * framework/middleware/maintenance/state-file.ts describes (at most once a
 * second per process, read only when it changed), and the writes of
 * `svc down` / `svc up` themselves.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, type Stats } from 'node:fs'
import { dirname } from 'node:path'
import type { MaintenanceSource, MaintenanceState } from '../middleware/maintenance/index.ts'
import { parseMaintenanceState, pollMaintenanceFile, type MaintenancePollOptions } from '../middleware/maintenance/state-file.ts'

export interface MaintenanceFileOptions extends MaintenancePollOptions {
  /** The file system calls (tests count them). */
  fs?: { stat(path: string): Stats | undefined; read(path: string): string }
}

const nodeFs = {
  stat: (path: string) => statSync(path, { throwIfNoEntry: false }),
  read: (path: string) => readFileSync(path, 'utf8'),
}

/** The maintenance source for `createApp({ maintenance })`, polling `path`. */
export function maintenanceFile(path: string, options: MaintenanceFileOptions = {}): MaintenanceSource {
  const fs = options.fs ?? nodeFs
  return pollMaintenanceFile(
    path,
    {
      identity: (file) => {
        const stat = fs.stat(file)
        return stat === undefined ? undefined : `${stat.ino}:${stat.size}:${stat.mtimeMs}`
      },
      read: fs.read,
    },
    options,
  )
}

/** The state in the file, or undefined when the app is up. */
export function readMaintenanceFile(path: string): MaintenanceState | undefined {
  if (statSync(path, { throwIfNoEntry: false }) === undefined) return undefined
  let text: string | undefined
  try {
    text = readFileSync(path, 'utf8')
  } catch {
    // unreadable: still down (parseMaintenanceState)
  }
  return parseMaintenanceState(text)
}

/** Writes the state atomically (a reader never sees half a file). */
export function writeMaintenanceFile(path: string, state: MaintenanceState): void {
  mkdirSync(dirname(path), { recursive: true })
  const temporary = `${path}.${process.pid}.tmp`
  writeFileSync(temporary, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 })
  renameSync(temporary, path)
}

/** Ends maintenance mode; returns whether the app was down. */
export function removeMaintenanceFile(path: string): boolean {
  const existed = statSync(path, { throwIfNoEntry: false }) !== undefined
  rmSync(path, { force: true })
  return existed
}
