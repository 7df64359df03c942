/**
 * The `idempotent` middleware (IETF draft "The Idempotency-Key HTTP Header
 * Field"): a POST or PATCH sent again with the same `Idempotency-Key` is
 * answered with the first answer, not run twice.
 *
 * - The key is scoped by the caller (the user, else the API key, else the
 *   client address), the method and the path; two users' same key are two keys.
 * - The first request claims it with one atomic insert
 *   (`INSERT ... ON CONFLICT DO NOTHING RETURNING`) and runs.
 * - A retry after it finished gets the stored status, headers and body, byte
 *   for byte, with `Idempotent-Replayed: true`; one while it runs gets 409;
 *   the same key with another body gets 422; no key where the route requires
 *   one gets 400.
 * - Only a success (2xx, 3xx) is kept: after a 4xx or 5xx the key is free, so
 *   the client may fix the request or retry with it.
 * - Keys expire (24 h by default, `IDEMPOTENCY_TTL_HOURS`) and are pruned by
 *   the scheduler; a lock whose request died is taken over after
 *   `IDEMPOTENCY_LOCK_SECONDS` (60).
 *
 * Put it after `auth` so the key is scoped by the user:
 * @example r.post('/posts', createPost).middleware('auth', 'idempotent')
 */
import type { Context } from '../context/context.ts'
import { HttpError } from '../http/http-error.ts'
import { TRACE_HEADER } from '../http/response.ts'
import type { Middleware } from '../router/types.ts'
import { sha256Hex } from '../auth/digest.ts'
import { rawBodyOf } from '../context/context.ts'
import { claimKey, completeKey, findKey, reclaimExpired, releaseKey, takeOverStale, type Claim, type KeyScope, type StoredKey } from './store.ts'
import { idempotencyKeyOf, MAX_IDEMPOTENCY_KEY_LENGTH } from './key.ts'

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key'
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed'

export interface IdempotencyOptions {
  /** A request without the header is refused (400); false lets it through, not idempotent. Default true. */
  required?: boolean
  /** How long a key is remembered (ms); default 24 hours. */
  ttlMs?: number
  /** How long an in-flight lock holds before another request may take it over (ms); default 60 s. */
  lockTimeoutMs?: number
  /** Milliseconds since the epoch (tests move it). */
  now?: () => number
}

export const DEFAULT_IDEMPOTENCY_TTL_MS = 24 * 3_600_000
export const DEFAULT_IDEMPOTENCY_LOCK_MS = 60_000
const METHODS = new Set(['POST', 'PATCH'])

/** @example r.post('/orders', createOrder).middleware('auth', idempotent({ ttlMs: 3_600_000 })) */
export function idempotent(options: IdempotencyOptions = {}): Middleware {
  const required = options.required ?? true
  const ttlMs = options.ttlMs ?? DEFAULT_IDEMPOTENCY_TTL_MS
  const lockTimeoutMs = options.lockTimeoutMs ?? DEFAULT_IDEMPOTENCY_LOCK_MS
  const now = options.now ?? Date.now

  return async function idempotency(c, next) {
    if (!METHODS.has(c.method)) return next()
    const header = c.headers.get(IDEMPOTENCY_KEY_HEADER)
    if (header === null) {
      if (!required) return next()
      throw new HttpError(400, `This request needs an ${IDEMPOTENCY_KEY_HEADER} header (a unique value, such as a UUID, per operation)`)
    }
    const key: KeyScope = { scope: callerScope(c), method: c.method, path: c.path, key: parseKey(header) }
    const fingerprint = await sha256Hex(canonicalJson(await rawBodyOf(c)))
    const db = c.db

    let claim = await claimKey(db, key, fingerprint, now(), ttlMs)
    while (claim === undefined) {
      const row = await findKey(db, key)
      // Deleted between the insert and the read (released, or pruned): try the insert again.
      if (row === undefined) {
        claim = await claimKey(db, key, fingerprint, now(), ttlMs)
        continue
      }
      if (row.expires_at <= now()) {
        claim = await reclaimExpired(db, row, fingerprint, now(), ttlMs)
        if (claim === undefined) throw inFlight()
        break
      }
      if (row.fingerprint !== fingerprint) {
        throw new HttpError(422, `This ${IDEMPOTENCY_KEY_HEADER} was already used with a different request body; use a new key for a new request`)
      }
      if (row.status === 'done') return replay(row)
      claim = await takeOverStale(db, row, now(), lockTimeoutMs)
      if (claim === undefined) throw inFlight()
    }
    return run(c, next, claim)
  }

  async function run(c: Context, next: () => Promise<Response>, claim: Claim): Promise<Response> {
    let response: Response
    try {
      response = await next()
    } catch (error) {
      await release(c, claim)
      throw error
    }
    if (response.status >= 400) {
      await release(c, claim)
      return response
    }
    const body = new Uint8Array(await response.arrayBuffer())
    const headers = [...response.headers].filter(([name]) => name.toLowerCase() !== TRACE_HEADER.toLowerCase())
    try {
      await completeKey(c.db, claim, { status: response.status, headers, body })
    } catch (error) {
      // The work is done (a post created): a 503 would ask the client to send it again, which, once the lock
      // times out, runs it twice. So the answer is sent; the key stays locked until then (a retry gets 409).
      console.error(
        `[svc idempotency] the answer to ${c.method} ${c.path} (trace ${c.traceId}) was sent but could not be stored for its key: ${(error as Error).message}`,
      )
    }
    return new Response(body.byteLength === 0 && isBodyless(response.status) ? null : body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    })
  }
}

/**
 * Frees the key of a request that failed. A release that fails itself (a busy database) is logged, and the
 * request's own answer is sent: it used to be replaced by the 503, so a 422 the client could fix read "try again".
 * The key then stays locked until the lock timeout (a retry gets 409).
 */
async function release(c: Context, claim: Claim): Promise<void> {
  try {
    await releaseKey(c.db, claim)
  } catch (error) {
    console.error(`[svc idempotency] the key of ${c.method} ${c.path} (trace ${c.traceId}) could not be freed after its failure: ${(error as Error).message}`)
  }
}

function replay(row: StoredKey): Response {
  const headers = new Headers(JSON.parse(row.response_headers ?? '[]') as Array<[string, string]>)
  headers.set(IDEMPOTENT_REPLAYED_HEADER, 'true')
  const body = row.response_body === null ? null : new Uint8Array(row.response_body as ArrayBuffer)
  const status = row.response_status ?? 200
  return new Response(isBodyless(status) ? null : body, { status, headers })
}

function inFlight(): HttpError {
  return new HttpError(409, `A request with this ${IDEMPOTENCY_KEY_HEADER} is still being processed; retry once it has finished`, {
    headers: { 'Retry-After': '1' },
  })
}

/** The caller a key belongs to: the user (after `auth`), else the API key, else the client address. */
function callerScope(c: Context): string {
  if (c.user !== undefined) return `user:${c.user.id}`
  const apiKey = (c.state as { apiKey?: { id: number } }).apiKey
  if (apiKey !== undefined) return `apikey:${apiKey.id}`
  return `ip:${c.ip ?? 'unknown'}`
}

/** The key of a header value (key.ts), or the 400 that says both forms. */
function parseKey(header: string): string {
  const key = idempotencyKeyOf(header)
  if (key === undefined) {
    throw new HttpError(
      400,
      `The ${IDEMPOTENCY_KEY_HEADER} header must be a quoted string of 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters ("8e03978e-40d5", with \\" and \\\\ escaped), or the key bare: visible ASCII with no spaces, quotes or backslashes`,
    )
  }
  return key
}

/**
 * JSON with sorted keys: the same body written with other spacing or key order is the same request.
 * Iterative, as the body reader is: a body may nest deeper than the stack (100,000 `[` parse, and this runs
 * before the route's schema), which answered 500.
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = []
  // What is left to write, last first: a value, or text already made (`[`, `,`, `"key":`).
  const pending: Array<{ text: string } | { value: unknown }> = [{ value }]
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if ('text' in next) {
      out.push(next.text)
      continue
    }
    const item = next.value
    if (Array.isArray(item)) {
      pending.push({ text: ']' })
      for (let i = item.length - 1; i >= 0; i--) {
        pending.push({ value: item[i] })
        if (i > 0) pending.push({ text: ',' })
      }
      pending.push({ text: '[' })
    } else if (item !== null && typeof item === 'object') {
      const names = Object.keys(item).sort()
      pending.push({ text: '}' })
      for (let i = names.length - 1; i >= 0; i--) {
        pending.push({ value: (item as Record<string, unknown>)[names[i]!] })
        pending.push({ text: `${JSON.stringify(names[i])}:` })
        if (i > 0) pending.push({ text: ',' })
      }
      pending.push({ text: '{' })
    } else {
      out.push(JSON.stringify(item) ?? 'null')
    }
  }
  return out.join('')
}

function isBodyless(status: number): boolean {
  return status === 204 || status === 205 || status === 304
}

export { pruneIdempotencyKeys } from './store.ts'
export { IDEMPOTENCY_KEY_PATTERN, MAX_IDEMPOTENCY_HEADER_LENGTH } from './key.ts'
export { idempotencyMigration, IDEMPOTENCY_MIGRATION_SOURCE } from './schema.ts'
