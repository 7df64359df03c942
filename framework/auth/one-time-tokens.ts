/** Single-use, short-lived tokens (email verification, password reset), stored hashed. */
import type { InValue } from '@libsql/client'
import type { Database, ResultSet, Statement } from '../database/database.ts'
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

/** A subquery giving the user id of a token still unused and unexpired, to embed in the writes it allows (`where id = (...)`). */
export interface TokenOwner {
  sql: string
  args: InValue[]
}

/** The condition naming a token still unused and unexpired: `token_hash`, `purpose`, now. */
const LIVE_TOKEN = 'token_hash = ? and purpose = ? and used_at is null and expires_at > ?'

/**
 * Whether the token is still unused and unexpired, without using it: a look
 * before work that only a live token deserves (hashing a new password). The
 * use itself (`useOneTimeToken`) checks again, atomically.
 */
export async function isLiveOneTimeToken(db: Database, token: string, purpose: OneTimePurpose, now: string): Promise<boolean> {
  const row = await db.first(`select 1 as live from one_time_tokens where ${LIVE_TOKEN}`, [await sha256Hex(token), purpose, now])
  return row !== undefined
}

/**
 * Uses the token up together with the writes it allows, as one batch (atomic
 * on every driver): `writes` are given the subquery naming the token's user
 * while the token is live, and run first; then the token is marked used. A
 * write that fails (a busy database's 503) writes nothing, and the token
 * still works for the client's retry; it used to be spent first, with nothing
 * done. Of two uses at once, one does all of it and the other nothing.
 * Returns the user id and the writes' results, or undefined when the token is
 * unknown, used or expired.
 */
export async function useOneTimeToken(
  db: Database,
  token: string,
  purpose: OneTimePurpose,
  now: string,
  writes: (owner: TokenOwner) => Statement[],
): Promise<{ userId: number; results: ResultSet[] } | undefined> {
  const tokenHash = await sha256Hex(token)
  const owner: TokenOwner = { sql: `select user_id from one_time_tokens where ${LIVE_TOKEN}`, args: [tokenHash, purpose, now] }
  const results = await db.batch([
    ...writes(owner),
    { sql: `update one_time_tokens set used_at = ? where ${LIVE_TOKEN} returning user_id`, args: [now, tokenHash, purpose, now] },
  ])
  const row = results.at(-1)?.rows[0]
  return row === undefined ? undefined : { userId: Number(row.user_id), results: results.slice(0, -1) }
}
