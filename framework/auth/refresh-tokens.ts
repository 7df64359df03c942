/**
 * Refresh tokens in the database: stored as a SHA-256 hash, grouped in
 * families (one login = one family). Rotation is one conditional UPDATE, so
 * of two concurrent refreshes with one token exactly one wins.
 */
import type { Database, Statement } from '../database/database.ts'

export type RevokeReason = 'rotated' | 'reuse' | 'logout' | 'password_reset'

export interface RefreshTokenRecord {
  id: string
  user_id: number
  family_id: string
  expires_at: string
  revoked_at: string | null
  revoked_reason: RevokeReason | null
}

export interface NewRefreshToken {
  id: string
  userId: number
  familyId: string
  tokenHash: string
  expiresAt: string
  now: string
}

/** The insert of a new refresh token, to run alone or in a batch. */
export function refreshTokenInsert(token: NewRefreshToken): Statement {
  return {
    sql: 'insert into refresh_tokens (id, user_id, family_id, token_hash, expires_at, created_at) values (?, ?, ?, ?, ?, ?)',
    args: [token.id, token.userId, token.familyId, token.tokenHash, token.expiresAt, token.now],
  }
}

export async function insertRefreshToken(db: Database, token: NewRefreshToken): Promise<void> {
  await db.execute(refreshTokenInsert(token))
}

/** Revokes the token if it is still valid: its family id for the one caller that did it, else undefined. */
export async function claimRefreshToken(db: Database, tokenHash: string, replacedBy: string, now: string): Promise<string | undefined> {
  const result = await db.execute(
    `update refresh_tokens set revoked_at = ?, revoked_reason = 'rotated', replaced_by = ?
     where token_hash = ? and revoked_at is null and expires_at > ?
     returning family_id`,
    [now, replacedBy, tokenHash, now],
  )
  return result.rows.length === 1 ? String(result.rows[0]!.family_id) : undefined
}

export async function findRefreshToken(db: Database, tokenHash: string): Promise<RefreshTokenRecord | undefined> {
  const result = await db.execute(
    'select id, user_id, family_id, expires_at, revoked_at, revoked_reason from refresh_tokens where token_hash = ?',
    [tokenHash],
  )
  return result.rows[0] as unknown as RefreshTokenRecord | undefined
}

export async function revokeFamily(db: Database, familyId: string, reason: RevokeReason, now: string): Promise<number> {
  const result = await db.execute(
    'update refresh_tokens set revoked_at = ?, revoked_reason = ? where family_id = ? and revoked_at is null',
    [now, reason, familyId],
  )
  return result.rowsAffected
}

export async function revokeUserRefreshTokens(db: Database, userId: number, reason: RevokeReason, now: string): Promise<number> {
  const result = await db.execute(
    'update refresh_tokens set revoked_at = ?, revoked_reason = ? where user_id = ? and revoked_at is null',
    [now, reason, userId],
  )
  return result.rowsAffected
}
