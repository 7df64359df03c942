/**
 * Maintenance mode from its state file (`storage/maintenance.json`, written
 * by `svc down`, removed by `svc up`) on any runtime: the adapter gives the
 * two file calls its runtime has (svc/node, svc/deno, svc/bun
 * `maintenanceFile`), so that this stays web-standard. The file survives
 * restarts and every process on the host sees it.
 *
 * Requests never read the file: each process looks at it at most once per
 * `pollMs` (default one second), from the request that comes after that
 * interval, and reads it only when it changed (inode, size or modification
 * time). A change is therefore seen by every process within `pollMs`. No
 * timer runs, so an idle process does nothing.
 */
import { DEFAULT_MAINTENANCE_MESSAGE, DEFAULT_RETRY_SECONDS, type MaintenanceSource, type MaintenanceState } from './index.ts'

/** The runtime's file calls; either may answer synchronously (Node, Deno) or with a promise (Bun). */
export interface MaintenanceFileAccess {
  /** What changes when the file is replaced or rewritten (inode, size, modification time); undefined when there is no file. */
  identity(path: string): string | undefined | Promise<string | undefined>
  read(path: string): string | Promise<string>
}

export interface MaintenancePollOptions {
  /** Look at the file at most this often (ms). */
  pollMs?: number
  /** The clock (tests). */
  now?: () => number
}

type Maybe<T> = T | Promise<T>

/** The maintenance source for `createApp({ maintenance })`, polling the file at `path` through `access`. */
export function pollMaintenanceFile(path: string, access: MaintenanceFileAccess, options: MaintenancePollOptions = {}): MaintenanceSource {
  const pollMs = options.pollMs ?? 1000
  const now = options.now ?? Date.now
  let checkedAt = -Infinity
  let seen = ''
  let state: MaintenanceState | undefined
  // A look at the file under way (asynchronous calls): the requests meanwhile wait for its answer, not the old one.
  let checking: Promise<MaintenanceState | undefined> | undefined
  return function maintenanceState() {
    if (checking !== undefined) return checking
    const time = now()
    if (time - checkedAt < pollMs) return state
    checkedAt = time
    const result = after(access.identity(path), (identity) => {
      const key = identity ?? ''
      if (key === seen) return state
      return after(identity === undefined ? undefined : readState(access, path), (next) => {
        seen = key
        state = next
        return state
      })
    })
    if (!(result instanceof Promise)) return result
    checking = result.finally(() => {
      checking = undefined
    })
    return checking
  }
}

/**
 * The state a file's text holds. A file that exists but cannot be read as a
 * state (`text` undefined: it could not be read) still means "down", with
 * the default message: whoever wrote it meant the app to be down, and
 * failing open would serve traffic during a migration.
 */
export function parseMaintenanceState(text: string | undefined): MaintenanceState {
  let raw: Partial<MaintenanceState> = {}
  try {
    const parsed = JSON.parse(text ?? '') as unknown
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

function readState(access: MaintenanceFileAccess, path: string): Maybe<MaintenanceState> {
  let text: Maybe<string>
  try {
    text = access.read(path)
  } catch {
    return parseMaintenanceState(undefined)
  }
  return text instanceof Promise ? text.then(parseMaintenanceState, () => parseMaintenanceState(undefined)) : parseMaintenanceState(text)
}

/** `next(value)`, synchronously when `value` is not a promise: a source with synchronous calls answers synchronously. */
function after<T, U>(value: Maybe<T>, next: (value: T) => Maybe<U>): Maybe<U> {
  return value instanceof Promise ? value.then(next) : next(value)
}
