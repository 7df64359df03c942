/**
 * The replay marker: `x-svc-replay-of: <trace id>.<signature>`, the signature
 * an HMAC-SHA256, under a key only this project has
 * (`storage/keys/replay-marker.key`, 32 random bytes written on the first
 * replay, mode 600, never committed: storage/ is git-ignored), of the trace
 * id and of the request it marks: its method, path and query string (as the
 * trace records it, redacted parameters as `[REDACTED]`).
 *
 * Why signed: any client can send the header. Read as it was, a hostile
 * client's requests would drop out of test:regression and of the editor's
 * route counts, and read as the developer's own replays. Why bound to the
 * request: a marker seen once (in a trace, a log, a shared curl command)
 * would otherwise make any other request a replay. The body is not bound:
 * the trace does not keep the bytes sent (it redacts fields, re-serialises
 * JSON the app parsed, cuts at TRACE_BODY_LIMIT, and in process has no
 * Content-Length to count), so nothing read from it could check a digest.
 *
 * A trace is a replay only when its marker verifies under this project's
 * key; otherwise the header stays in the trace as the client sent it, the
 * trace is an ordinary request (`replay_of: null`), and the trace id the
 * marker claims is said (`unverified_replay_of`) so that svc and the editor
 * can show it. Markers signed before they were bound to the request (over
 * the trace id alone) and bare trace ids are unverified too: nothing tells
 * them from a reused or forged one.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { Redactor, type TraceRecord } from '../../framework/trace/index.ts'
import { CliError } from '../output/cli-error.ts'
import { loadConfig } from '../project/load-app.ts'
import type { Project } from '../project/project.ts'
import { projectTraceConfig } from './open-store.ts'
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

/** What a marker signs: the request as the trace records it (method, path, redacted query string). */
export interface MarkedRequest {
  method: string
  path: string
  /** Without `?`, redacted parameters as `[REDACTED]` (TraceRecord.query). */
  query: string
}

/** What svc needs to mark what it sends: the project's key, and the query parameters its traces redact (TRACE_REDACT_FIELDS). */
export interface ReplaySigner {
  key: Buffer
  redactFields: ReadonlySet<string>
}

/** The signer of this project's replays: its key (written on first use) and its traces' redacted fields. */
export function replaySigner(project: Project): ReplaySigner {
  return { key: replayKeyToSign(project), redactFields: projectTraceConfig(project, loadConfig(project)).redactFields }
}

function signature(key: Buffer, traceId: string, request: MarkedRequest): string {
  return createHmac('sha256', key).update(`svc replay-of v2\n${traceId}\n${request.method.toUpperCase()}\n${request.path}\n${request.query}`).digest('base64url')
}

/** The header's value for a replay of `traceId` sent as `request` (its method and url, as it goes out). */
export function replayMarker(signer: ReplaySigner, traceId: string, request: { method: string; url: string }): string {
  const url = new URL(request.url)
  // The query as the server's trace will record it: the verifier reads nothing else.
  const query = new Redactor(new Set(), signer.redactFields).queryString(url.search)
  return `${traceId}.${signature(signer.key, traceId, { method: request.method, path: url.pathname, query })}`
}

/** The trace id a marker names when it verifies under `key` for `request`; null for a missing, unsigned, forged or reused one. */
export function verifiedReplayOf(key: ReplayKey, marker: string | undefined, request: MarkedRequest): string | null {
  if (key === undefined || marker === undefined) return null
  const dot = marker.lastIndexOf('.')
  if (dot <= 0) return null
  const traceId = marker.slice(0, dot)
  const given = Buffer.from(marker.slice(dot + 1))
  const expected = Buffer.from(signature(key, traceId, request))
  return given.length === expected.length && timingSafeEqual(given, expected) ? traceId : null
}

/** What a trace's marker says: the trace it replays (verified), or the one a marker that does not verify claims. */
export interface ReplayMarking {
  replay_of: string | null
  unverified_replay_of: string | null
}

/** Longer claims are cut: the header is the client's, and a list or a tree view has one line for it. */
const CLAIM_LIMIT = 100

/** The claim as shown: what a trace id is made of, anything else (markup, control characters) as `?`. */
function claimOf(marker: string): string {
  const dot = marker.lastIndexOf('.')
  return (dot > 0 ? marker.slice(0, dot) : marker).slice(0, CLAIM_LIMIT).replace(/[^\w-]/g, '?')
}

export function replayMarking(record: Pick<TraceRecord, 'headers' | 'method' | 'path' | 'query'>, key: ReplayKey): ReplayMarking {
  const marker = record.headers[REPLAY_HEADER]
  if (marker === undefined) return { replay_of: null, unverified_replay_of: null }
  const verified = verifiedReplayOf(key, marker, record)
  if (verified !== null) return { replay_of: verified, unverified_replay_of: null }
  return { replay_of: null, unverified_replay_of: claimOf(marker) }
}

/** What svc says of a trace whose marker does not verify (the human views; `unverified_replay_of` in --json). */
export function unverifiedMarkerNote(claim: string): string {
  return `Its x-svc-replay-of header claims a replay of ${claim}, but does not verify under this project's replay key (forged, copied from another request, or signed before markers were bound to the request): counted as a request of its own.`
}

/** The trace `record` is a replay of, as svc sent it; null for a request of its own (a forged or reused marker included). */
export function replayOf(record: Pick<TraceRecord, 'headers' | 'method' | 'path' | 'query'>, key: ReplayKey): string | null {
  return replayMarking(record, key).replay_of
}
