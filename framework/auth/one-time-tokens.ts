/** Single-use, short-lived tokens (email verification, password reset), stored hashed. */
import type { Database, Statement } from '../database/database.ts'
import { randomToken, sha256Hex } from './digest.ts'

export type OneTimePurpose = 'verify_email' | 'reset_password'

export interface OneTimeToken {
  /** What the mail carries. */
  token: string
  /** What the table stores. */
  tokenHash: string
}

export async function newOneTimeToken(): Promise<OneTimeToken> {
  const token = randomToken()
  return { token, tokenHash: await sha256Hex(token) }
}

/**
 * The statements that store `tokenHash` for `purpose` (earlier unused ones of
 * the same purpose stop working), to run in a batch or in a larger transaction.
 */
export function oneTimeTokenStatements(
  tokenHash: string,
  options: { userId: number; purpose: OneTimePurpose; now: string; expiresAt: string },
): Statement[] {
  return [
    {
      sql: 'update one_time_tokens set used_at = ? where user_id = ? and purpose = ? and used_at is null',
      args: [options.now, options.userId, options.purpose],
    },
    {
      sql: 'insert into one_time_tokens (user_id, purpose, token_hash, expires_at, created_at) values (?, ?, ?, ?, ?)',
      args: [options.userId, options.purpose, tokenHash, options.expiresAt, options.now],
    },
  ]
}

/** Issues and stores a new token for `purpose`; earlier unused ones of the same purpose stop working. */
export async function createOneTimeToken(
  db: Database,
  options: { userId: number; purpose: OneTimePurpose; now: string; expiresAt: string },
): Promise<string> {
  const { token, tokenHash } = await newOneTimeToken()
  await db.batch(oneTimeTokenStatements(tokenHash, options))
  return token
}

/** Uses the token up (atomically: it works once); the user id, or undefined when unknown, used or expired. */
export async function consumeOneTimeToken(
  db: Database,
  token: string,
  purpose: OneTimePurpose,
  now: string,
): Promise<number | undefined> {
  const result = await db.execute(
    `update one_time_tokens set used_at = ?
     where token_hash = ? and purpose = ? and used_at is null and expires_at > ?
     returning user_id`,
    [now, await sha256Hex(token), purpose, now],
  )
  const row = result.rows[0]
  return row === undefined ? undefined : Number(row.user_id)
}
