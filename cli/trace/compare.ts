/**
 * Compares a recorded response with a new one, ignoring what legitimately
 * changes between two runs of the same request. The rule (docs/traces.md):
 *
 * - status: always compared.
 * - headers: compared by name, except volatile ones (date, trace id,
 *   content-length, set-cookie, etag, last-modified, server-timing, rate
 *   limit counters, retry-after...).
 * - body (JSON): compared value by value, except at volatile fields, where
 *   only the presence and the JSON type must match: `id`, `*_id`, `*_at`,
 *   `timestamp`, `token`, `refresh_token`, `access_token`, `jti`, `trace_id`,
 *   `expires_in`, `*_token`, `*_ms` (durations), and any string value that is a timestamp, UUID, JWT or
 *   trace id, that was redacted in the trace, or where a too deeply nested body was cut.
 * - the debug details of an error envelope (`exception`, only with APP_DEBUG
 *   on): its class and message are compared when both responses have them,
 *   never its stack (the frames of whichever process answered: a server, the
 *   replay in this process, built or source code), nor whether it is there.
 */
import { REDACTED, TOO_DEEP } from '../../framework/trace/index.ts'
import type { BodyChangeJson, HeaderChangeJson, ResponseDiffJson } from '../contract/traces.ts'

const VOLATILE_HEADERS = new Set([
  'date',
  'x-service-trace-id',
  'content-length',
  'set-cookie',
  'etag',
  'last-modified',
  'age',
  'expires',
  'server-timing',
  'x-response-time',
  'retry-after',
  // The throttle's headers: counters, and the limit, which is configuration, not the route's answer.
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'ratelimit-policy',
  'ratelimit',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-encoding',
  'vary',
])

const VOLATILE_FIELDS = new Set(['id', 'timestamp', 'token', 'refresh_token', 'access_token', 'jti', 'trace_id', 'expires_in', 'request_id'])
const VOLATILE_STRING = [
  /^\d{4}-\d\d-\d\d([T ]\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?)?$/, // dates and timestamps
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, // UUID
  /^eyJ[\w-]*\.[\w-]*\.[\w-]*$/, // JWT
  /^[A-Za-z][A-Za-z0-9]*_[0-9a-f]{32}$/, // trace id
]

export function isVolatileField(key: string): boolean {
  const name = key.toLowerCase()
  return VOLATILE_FIELDS.has(name) || name.endsWith('_id') || name.endsWith('_at') || name.endsWith('_token') || name.endsWith('_ms')
}

export function isVolatileValue(value: unknown): boolean {
  return typeof value === 'string' && (value === REDACTED || value === TOO_DEEP || VOLATILE_STRING.some((pattern) => pattern.test(value)))
}

export interface ComparableResponse {
  status: number
  headers: Record<string, string>
  /** Parsed JSON, text, or null. */
  body: unknown
  /** True when the recorded body was cut: only its prefix can be compared. */
  truncated?: boolean
}

export function compareResponses(recorded: ComparableResponse, current: ComparableResponse): ResponseDiffJson {
  const status = recorded.status === current.status ? null : { recorded: recorded.status, current: current.status }
  const headers: HeaderChangeJson[] = []
  const names = new Set([...Object.keys(recorded.headers), ...Object.keys(current.headers)].map((name) => name.toLowerCase()))
  for (const name of [...names].sort()) {
    if (VOLATILE_HEADERS.has(name)) continue
    const before = lookup(recorded.headers, name)
    const after = lookup(current.headers, name)
    if (before === REDACTED) continue
    if (before !== after) headers.push({ name, recorded: before, current: after })
  }
  const body: BodyChangeJson[] = []
  if (recorded.truncated === true && typeof recorded.body === 'string') {
    const text = typeof current.body === 'string' ? current.body : JSON.stringify(current.body)
    const prefix = beforeDebugStack(recorded.body)
    if (!text.startsWith(prefix)) body.push({ path: '', recorded: recorded.body, current: text.slice(0, recorded.body.length) })
  } else {
    compareValues(recorded.body, current.body, '', false, body)
  }
  return { changed: status !== null || headers.length > 0 || body.length > 0, status, headers, body }
}

function lookup(headers: Record<string, string>, name: string): string | null {
  for (const key of Object.keys(headers)) if (key.toLowerCase() === name) return headers[key]!
  return null
}

function typeOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value
}

function compareValues(before: unknown, after: unknown, path: string, volatile: boolean, out: BodyChangeJson[]): void {
  if (volatile || isVolatileValue(before)) {
    // Only the shape must hold: present with the same JSON type (a redacted value may be anything but absent).
    if (after === undefined || (before !== REDACTED && typeOf(before) !== typeOf(after) && !(isVolatileValue(before) && isVolatileValue(after)))) {
      out.push({ path, recorded: before, current: after ?? null })
    }
    return
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    if (before.length !== after.length) {
      out.push({ path: join(path, 'length'), recorded: before.length, current: after.length })
    }
    const length = Math.min(before.length, after.length)
    for (let i = 0; i < length; i++) compareValues(before[i], after[i], join(path, String(i)), false, out)
    return
  }
  if (typeOf(before) === 'object' && typeOf(after) === 'object') {
    const a = before as Record<string, unknown>
    const b = after as Record<string, unknown>
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const child = join(path, key)
      if (path === '' && key === DEBUG_DETAILS && (isErrorEnvelope(a) || isErrorEnvelope(b))) compareDebugDetails(a[key], b[key], child, out)
      else if (!(key in a)) out.push({ path: child, recorded: null, current: b[key] })
      else if (!(key in b)) out.push({ path: child, recorded: a[key], current: null })
      else compareValues(a[key], b[key], child, isVolatileField(key), out)
    }
    return
  }
  if (before !== after) out.push({ path, recorded: before ?? null, current: after ?? null })
}

/** Where an error envelope carries what only APP_DEBUG shows: `{ class, message, stack }` of a 500 (framework/http/response.ts). */
const DEBUG_DETAILS = 'exception'

/** A cut error envelope that reached the debug stack (`{"exception":{"class":...,"message":...,"stack":[...`): only what precedes the stack compares. */
function beforeDebugStack(prefix: string): string {
  const stack = prefix.indexOf(',"stack":[')
  return prefix.startsWith(`{"${DEBUG_DETAILS}":{`) && stack !== -1 ? prefix.slice(0, stack) : prefix
}

function isErrorEnvelope(body: Record<string, unknown>): boolean {
  return body.success === false && typeof body.error === 'string'
}

/**
 * APP_DEBUG may differ between the recording and the replay, so the details
 * may be on one side only; the stack differs between any two processes.
 * What was thrown (class, message) is the app's doing: compared.
 */
function compareDebugDetails(before: unknown, after: unknown, path: string, out: BodyChangeJson[]): void {
  if (typeOf(before) !== 'object' || typeOf(after) !== 'object') return
  const a = before as Record<string, unknown>
  const b = after as Record<string, unknown>
  for (const key of ['class', 'message']) {
    if (key in a && key in b) compareValues(a[key], b[key], join(path, key), false, out)
  }
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`
}
