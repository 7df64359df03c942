/** Single-use, short-lived tokens (email verification, password reset), stored hashed. */
import type { Database } from '../database/database.ts'
import { randomToken, sha256Hex } from './digest.ts'

export type OneTimePurpose = 'verify_email' | 'reset_password'

/** Issues a new token for `purpose`; earlier unused ones of the same purpose stop working. */
export async function createOneTimeToken(
  db: Database,
  options: { userId: number; purpose: OneTimePurpose; now: string; expiresAt: string },
): Promise<string> {
  const token = randomToken()
  await db.batch([
    {
      sql: 'update one_time_tokens set used_at = ? where user_id = ? and purpose = ? and used_at is null',
      args: [options.now, options.userId, options.purpose],
    },
    {
      sql: 'insert into one_time_tokens (user_id, purpose, token_hash, expires_at, created_at) values (?, ?, ?, ?, ?)',
      args: [options.userId, options.purpose, await sha256Hex(token), options.expiresAt, options.now],
    },
  ])
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
