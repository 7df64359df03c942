/** Scoped API keys in the `api_keys` table (`svc make:apikey-table`), stored as SHA-256 hashes. */
import type { Database } from '../../database/database.ts'
import { randomToken, sha256Hex } from '../../auth/digest.ts'

export interface ApiKeyRecord {
  id: number
  name: string
  prefix: string
  scopes: string[]
  expires_at: string | null
  revoked_at: string | null
}

export interface CreatedApiKey {
  id: number
  name: string
  /** The key itself: shown once, never stored. */
  key: string
  scopes: string[]
  expires_at: string
}

const SCOPE = /^[A-Za-z0-9_.:*-]{1,64}$/

/** `orders:read, orders:write` => `['orders:read', 'orders:write']`, or an Error naming the bad one. */
export function parseScopes(text: string): string[] {
  const scopes = [...new Set(text.split(',').map((scope) => scope.trim()).filter((scope) => scope !== ''))]
  if (scopes.length === 0) throw new Error('give at least one scope (comma-separated, e.g. posts:read,posts:write)')
  const bad = scopes.find((scope) => !SCOPE.test(scope))
  if (bad !== undefined) throw new Error(`invalid scope "${bad}": use letters, digits and . _ : * - (at most 64)`)
  return scopes
}

/**
 * Creates a key valid for `days` days. The key reads `svc_<prefix>_<secret>`;
 * the prefix is stored in clear to recognise a key in lists, the rest only hashed.
 */
export async function createApiKey(
  db: Database,
  options: { name: string; scopes: string[]; days: number; now?: number },
): Promise<CreatedApiKey> {
  const now = options.now ?? Date.now()
  const prefix = randomToken(6)
  const key = `svc_${prefix}_${randomToken(32)}`
  const expiresAt = new Date(now + options.days * 86_400_000).toISOString()
  const result = await db.execute(
    'insert into api_keys (name, prefix, key_hash, scopes, expires_at, created_at) values (?, ?, ?, ?, ?, ?) returning id',
    [options.name, prefix, await sha256Hex(key), JSON.stringify(options.scopes), expiresAt, new Date(now).toISOString()],
  )
  return { id: Number(result.rows[0]!.id), name: options.name, key, scopes: options.scopes, expires_at: expiresAt }
}

/** The stored key matching `key`, if it exists (expiry and revocation are the caller's to check). */
export async function findApiKey(db: Database, key: string): Promise<ApiKeyRecord | undefined> {
  const result = await db.execute(
    'select id, name, prefix, scopes, expires_at, revoked_at from api_keys where key_hash = ?',
    [await sha256Hex(key)],
  )
  const row = result.rows[0]
  if (row === undefined) return undefined
  return {
    id: Number(row.id),
    name: String(row.name),
    prefix: String(row.prefix),
    scopes: JSON.parse(String(row.scopes)) as string[],
    expires_at: (row.expires_at as string | null) ?? null,
    revoked_at: (row.revoked_at as string | null) ?? null,
  }
}
