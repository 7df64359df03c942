/**
 * Refresh tokens in the database: stored as a SHA-256 hash, grouped in
 * families (one login = one family). Rotation is one conditional UPDATE and
 * the replacement's insert in one batch, so of two concurrent refreshes with
 * one token exactly one wins, and it gets its replacement.
 */
import type { InValue } from '@libsql/client'
import type { Database, Statement } from '../database/database.ts'
import type { TokenOwner } from './one-time-tokens.ts'

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

/**
 * Rotation, as one batch (atomic on every driver): revokes the presented
 * token if it is still valid and inserts its replacement into the same
 * family, or does neither. The insert copies the family from the row the
 * update claimed (`replaced_by` is the new token's id), so a token another
 * request claimed first gets no replacement. Returns the family id for the
 * one caller that rotated, else undefined.
 */
export async function rotateRefreshToken(
  db: Database,
  tokenHash: string,
  next: Omit<NewRefreshToken, 'familyId'>,
): Promise<string | undefined> {
  const [claimed] = await db.batch([
    {
      sql: `update refresh_tokens set revoked_at = ?, revoked_reason = 'rotated', replaced_by = ?
     where token_hash = ? and revoked_at is null and expires_at > ?
     returning family_id`,
      args: [next.now, next.id, tokenHash, next.now],
    },
    {
      sql: `insert into refresh_tokens (id, user_id, family_id, token_hash, expires_at, created_at)
     select ?, ?, family_id, ?, ?, ? from refresh_tokens where token_hash = ? and replaced_by = ?`,
      args: [next.id, next.userId, next.tokenHash, next.expiresAt, next.now, tokenHash, next.id],
    },
  ])
  return claimed?.rows.length === 1 ? String(claimed.rows[0]!.family_id) : undefined
}

/**
 * The reuse grace (`JWT_REFRESH_REUSE_GRACE`): a token rotated at or after
 * `rotatedSince`, presented again, gets a sibling in its family instead of
 * revoking it, as Auth0's reuse interval and Okta's grace period do. One
 * statement: the sibling is inserted only if the token was rotated (not
 * revoked otherwise: logout, reuse, a password reset), within the grace,
 * is not expired, and its family still has a live token (a family revoked
 * for reuse stays revoked). Returns the family id, or undefined when the
 * grace does not apply.
 */
export async function regrantWithinGrace(
  db: Database,
  tokenHash: string,
  rotatedSince: string,
  next: Omit<NewRefreshToken, 'familyId'>,
): Promise<string | undefined> {
  const result = await db.execute(
    `insert into refresh_tokens (id, user_id, family_id, token_hash, expires_at, created_at)
     select ?, ?, presented.family_id, ?, ?, ? from refresh_tokens presented
     where presented.token_hash = ? and presented.revoked_reason = 'rotated' and presented.revoked_at >= ? and presented.expires_at > ?
       and exists (select 1 from refresh_tokens live where live.family_id = presented.family_id and live.revoked_at is null)
     returning family_id`,
    [next.id, next.userId, next.tokenHash, next.expiresAt, next.now, tokenHash, rotatedSince, next.now],
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

/** How many tokens of a family are live (what `familyRevoke` revokes), as a subquery for the same batch. */
export function liveInFamily(familyId: string): { sql: string; args: InValue[] } {
  return { sql: 'select count(*) from refresh_tokens where family_id = ? and revoked_at is null', args: [familyId] }
}

/** Revokes every live token of a family, to run in a batch (a reuse: with the token version and its security event). */
export function familyRevoke(familyId: string, reason: RevokeReason, now: string): Statement {
  return { sql: 'update refresh_tokens set revoked_at = ?, revoked_reason = ? where family_id = ? and revoked_at is null', args: [now, reason, familyId] }
}

/** Revokes the refresh tokens of the user `owner` names (a subquery: the batch that uses up a reset token). */
export function userRefreshTokensRevoke(owner: TokenOwner, reason: RevokeReason, now: string): Statement {
  return {
    sql: `update refresh_tokens set revoked_at = ?, revoked_reason = ? where user_id = (${owner.sql}) and revoked_at is null`,
    args: [now, reason, ...owner.args],
  }
}

export async function revokeUserRefreshTokens(db: Database, userId: number, reason: RevokeReason, now: string): Promise<number> {
  const result = await db.execute(
    'update refresh_tokens set revoked_at = ?, revoked_reason = ? where user_id = ? and revoked_at is null',
    [now, reason, userId],
  )
  return result.rowsAffected
}
