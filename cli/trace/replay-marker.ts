/**
 * The replay marker: `x-svc-replay-of: <trace id>.<signature>`, the signature
 * an HMAC-SHA256 of the trace id under a key only this project has
 * (`storage/keys/replay-marker.key`, 32 random bytes written on the first
 * replay, mode 600, never committed: storage/ is git-ignored).
 *
 * Why signed: any client can send the header. Read as it was, a hostile
 * client's requests would drop out of test:regression and of the editor's
 * route counts, and read as the developer's own replays. A trace is a replay
 * only when its marker verifies under this project's key; otherwise the
 * header stays in the trace as the client sent it, and the trace is an
 * ordinary request (`replay_of: null`). Traces recorded before markers were
 * signed (the bare trace id) are ordinary requests too: nothing tells them
 * from a forged one.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { TraceRecord } from '../../framework/trace/index.ts'
import { CliError } from '../output/cli-error.ts'
import type { Project } from '../project/project.ts'
import { REPLAY_HEADER } from './replay-header.ts'

/** The project's replay key; undefined before its first replay (then no marker verifies). */
export type ReplayKey = Buffer | undefined

export function replayKeyFile(project: Pick<Project, 'storageDir'>): string {
  return join(project.storageDir, 'keys', 'replay-marker.key')
}

/** The key to verify markers with: read only, never created by a reader. */
export function readReplayKey(project: Pick<Project, 'storageDir'>): ReplayKey {
  try {
    const key = Buffer.from(readFileSync(replayKeyFile(project), 'utf8').trim(), 'hex')
    return key.length >= 32 ? key : undefined
  } catch {
    return undefined
  }
}

/** The key to sign markers with: created on first use (exclusive create, so two replays at once agree on one key). */
export function replayKeyToSign(project: Pick<Project, 'storageDir'>): Buffer {
  const existing = readReplayKey(project)
  if (existing !== undefined) return existing
  const file = replayKeyFile(project)
  mkdirSync(dirname(file), { recursive: true })
  // Written whole to a file of its own, then linked into place: a replay starting at the same moment sees no key
  // file or the whole key, never a file created but not yet written (which it would refuse as E_REPLAY_KEY).
  const draft = `${file}.${process.pid}.draft`
  writeFileSync(draft, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 })
  try {
    linkSync(draft, file)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  } finally {
    rmSync(draft, { force: true })
  }
  const key = readReplayKey(project)
  if (key === undefined) {
    // Not replaced silently: a new key would turn every past replay into an ordinary request.
    throw new CliError('E_REPLAY_KEY', `${file} is not a replay key (64 hexadecimal digits): svc cannot sign the replay marker`, {
      hint: `delete it and replay again (a new key is written; replays recorded under the old one then read as ordinary requests)`,
    })
  }
  return key
}

function signature(key: Buffer, traceId: string): string {
  return createHmac('sha256', key).update(`svc replay-of ${traceId}`).digest('base64url')
}

/** The header's value for a replay of `traceId`. */
export function replayMarker(key: Buffer, traceId: string): string {
  return `${traceId}.${signature(key, traceId)}`
}

/** The trace id a marker names when it verifies under `key`; null for a missing, unsigned or forged one. */
export function verifiedReplayOf(key: ReplayKey, marker: string | undefined): string | null {
  if (key === undefined || marker === undefined) return null
  const dot = marker.lastIndexOf('.')
  if (dot <= 0) return null
  const traceId = marker.slice(0, dot)
  const given = Buffer.from(marker.slice(dot + 1))
  const expected = Buffer.from(signature(key, traceId))
  return given.length === expected.length && timingSafeEqual(given, expected) ? traceId : null
}

/** The trace `record` is a replay of, as svc sent it; null for a request of its own (a forged marker included). */
export function replayOf(record: Pick<TraceRecord, 'headers'>, key: ReplayKey): string | null {
  return verifiedReplayOf(key, record.headers[REPLAY_HEADER])
}
