/**
 * Maintenance mode on Node: the state lives in a small JSON file
 * (`storage/maintenance.json`, written by `svc down`, removed by `svc up`),
 * so it survives restarts and every worker process on the host sees it.
 *
 * Requests never read the file: each process stats it at most once per
 * `pollMs` (default one second), from the request that comes after that
 * interval, and reads it only when it changed (inode, size or modification
 * time). A change is therefore seen by every process within `pollMs`. No
 * timer runs, so an idle process does nothing.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, type Stats } from 'node:fs'
import { dirname } from 'node:path'
import {
  DEFAULT_MAINTENANCE_MESSAGE,
  DEFAULT_RETRY_SECONDS,
  type MaintenanceSource,
  type MaintenanceState,
} from '../middleware/maintenance/index.ts'

export interface MaintenanceFileOptions {
  /** Stat the file at most this often (ms). */
  pollMs?: number
  /** The clock (tests). */
  now?: () => number
  /** The file system calls (tests count them). */
  fs?: { stat(path: string): Stats | undefined; read(path: string): string }
}

const nodeFs = {
  stat: (path: string) => statSync(path, { throwIfNoEntry: false }),
  read: (path: string) => readFileSync(path, 'utf8'),
}

/** The maintenance source for `createApp({ maintenance })`, polling `path`. */
export function maintenanceFile(path: string, options: MaintenanceFileOptions = {}): MaintenanceSource {
  const pollMs = options.pollMs ?? 1000
  const now = options.now ?? Date.now
  const fs = options.fs ?? nodeFs
  let checkedAt = -Infinity
  let seen = ''
  let state: MaintenanceState | undefined
  return function maintenanceState() {
    const time = now()
    if (time - checkedAt < pollMs) return state
    checkedAt = time
    const stat = fs.stat(path)
    const identity = stat === undefined ? '' : `${stat.ino}:${stat.size}:${stat.mtimeMs}`
    if (identity !== seen) {
      seen = identity
      state = stat === undefined ? undefined : parseState(() => fs.read(path))
    }
    return state
  }
}

/** The state in the file, or undefined when the app is up. */
export function readMaintenanceFile(path: string): MaintenanceState | undefined {
  return statSync(path, { throwIfNoEntry: false }) === undefined ? undefined : parseState(() => readFileSync(path, 'utf8'))
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

/**
 * A file that exists but cannot be read as a state still means "down" (with
 * the default message): whoever wrote it meant the app to be down, and
 * failing open would serve traffic during a migration.
 */
function parseState(read: () => string): MaintenanceState {
  let raw: Partial<MaintenanceState> = {}
  try {
    const parsed = JSON.parse(read()) as unknown
    if (typeof parsed === 'object' && parsed !== null) raw = parsed as Partial<MaintenanceState>
  } catch {
    // see above: down, with defaults
  }
  return {
    since: typeof raw.since === 'string' ? raw.since : new Date(0).toISOString(),
    message: typeof raw.message === 'string' && raw.message !== '' ? raw.message : DEFAULT_MAINTENANCE_MESSAGE,
    retry: typeof raw.retry === 'number' && Number.isFinite(raw.retry) && raw.retry >= 0 ? raw.retry : DEFAULT_RETRY_SECONDS,
    allow: Array.isArray(raw.allow) ? raw.allow.filter((entry): entry is string => typeof entry === 'string') : [],
    ...(typeof raw.secret_sha256 === 'string' ? { secret_sha256: raw.secret_sha256 } : {}),
  }
}
