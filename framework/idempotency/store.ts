/**
 * The idempotency_keys rows: claimed with one atomic insert, finished with the
 * response, released on failure, taken over when expired or stale. Every
 * write after the claim names the claim's lock token, so a request whose lock
 * was taken over cannot overwrite its successor's row.
 */
import type { Database } from '../database/database.ts'

export interface KeyScope {
  /** `user:<id>`, `apikey:<id>` or `ip:<address>`. */
  scope: string
  method: string
  path: string
  key: string
}

export interface StoredKey {
  id: number
  fingerprint: string
  status: 'in_flight' | 'done'
  lock_token: string | null
  locked_at: number | null
  response_status: number | null
  response_headers: string | null
  response_body: ArrayBuffer | Uint8Array | null
  expires_at: number
}

export interface Claim {
  id: number
  token: string
}

const WHERE_KEY = 'scope = ? and method = ? and path = ? and idempotency_key = ?'
const keyArgs = (k: KeyScope) => [k.scope, k.method, k.path, k.key]

/** The first request with this key owns it: `INSERT ... ON CONFLICT DO NOTHING RETURNING`. */
export async function claimKey(db: Database, key: KeyScope, fingerprint: string, now: number, ttlMs: number): Promise<Claim | undefined> {
  const token = crypto.randomUUID()
  const row = await db.first<{ id: number }>(
    `insert into idempotency_keys (scope, method, path, idempotency_key, fingerprint, status, lock_token, locked_at, created_at, expires_at)
      values (?, ?, ?, ?, ?, 'in_flight', ?, ?, ?, ?)
      on conflict (scope, method, path, idempotency_key) do nothing
      returning id`,
    [...keyArgs(key), fingerprint, token, now, now, now + ttlMs],
  )
  return row === undefined ? undefined : { id: row.id, token }
}

export async function findKey(db: Database, key: KeyScope): Promise<StoredKey | undefined> {
  return db.first<StoredKey>(
    `select id, fingerprint, status, lock_token, locked_at, response_status, response_headers, response_body, expires_at
      from idempotency_keys where ${WHERE_KEY}`,
    keyArgs(key),
  )
}

/** An expired key starts over as a new claim; only one of two racing requests gets it. */
export async function reclaimExpired(db: Database, row: StoredKey, fingerprint: string, now: number, ttlMs: number): Promise<Claim | undefined> {
  const token = crypto.randomUUID()
  const taken = await db.first<{ id: number }>(
    `update idempotency_keys set fingerprint = ?, status = 'in_flight', lock_token = ?, locked_at = ?, created_at = ?, expires_at = ?,
        response_status = null, response_headers = null, response_body = null
      where id = ? and expires_at = ? and expires_at <= ? returning id`,
    [fingerprint, token, now, now, now + ttlMs, row.id, row.expires_at, now],
  )
  return taken === undefined ? undefined : { id: row.id, token }
}

/** An in-flight lock older than the lock timeout (its request died) passes to this request; only one of two racing ones gets it. */
export async function takeOverStale(db: Database, row: StoredKey, now: number, lockTimeoutMs: number): Promise<Claim | undefined> {
  if (row.locked_at === null || row.locked_at > now - lockTimeoutMs) return undefined
  const token = crypto.randomUUID()
  const taken = await db.first<{ id: number }>(
    `update idempotency_keys set lock_token = ?, locked_at = ?
      where id = ? and status = 'in_flight' and lock_token is ? returning id`,
    [token, now, row.id, row.lock_token],
  )
  return taken === undefined ? undefined : { id: row.id, token }
}

export async function completeKey(db: Database, claim: Claim, response: { status: number; headers: Array<[string, string]>; body: Uint8Array }): Promise<void> {
  await db.execute(
    `update idempotency_keys set status = 'done', response_status = ?, response_headers = ?, response_body = ?, lock_token = null, locked_at = null
      where id = ? and lock_token = ?`,
    [response.status, JSON.stringify(response.headers), response.body, claim.id, claim.token],
  )
}

/** The request failed: the key is free again, so the client may retry with it. */
export async function releaseKey(db: Database, claim: Claim): Promise<void> {
  await db.execute(`delete from idempotency_keys where id = ? and status = 'in_flight' and lock_token = ?`, [claim.id, claim.token])
}

/** Deletes expired keys (the scheduler's built-in task); returns how many. */
export async function pruneIdempotencyKeys(db: Database, now: number = Date.now()): Promise<number> {
  return (await db.execute('delete from idempotency_keys where expires_at <= ?', [now])).rowsAffected
}
