/** Queries on `users`. Each takes the request's database handle (so it is traced). */
import type { Database, Statement } from '../database/database.ts'
import type { TokenOwner } from './one-time-tokens.ts'

export interface UserRecord {
  id: number
  name: string
  email: string
  password: string
  role: string
  status: number
  token_version: number
  login_attempts: number
  locked_until: string | null
  email_verified_at: string | null
}

/** What the auth middleware reads on every request: one primary-key lookup. */
export interface UserAccess {
  id: number
  name: string
  email: string
  role: string
  status: number
  token_version: number
  email_verified_at: string | null
}

export async function findUserByEmail(db: Database, email: string): Promise<UserRecord | undefined> {
  const result = await db.execute(
    'select id, name, email, password, role, status, token_version, login_attempts, locked_until, email_verified_at from users where email = ?',
    [email],
  )
  return result.rows[0] as unknown as UserRecord | undefined
}

/**
 * One primary-key read on every authenticated request. The columns come back
 * packed in one JSON column: the libSQL client builds every column of a row
 * as a defined property, and one column instead of six halves the read
 * (measured: about 37 against 70 us; see docs/authentication.md).
 */
export async function findUserAccess(db: Database, id: number): Promise<UserAccess | undefined> {
  const result = await db.execute(
    'select json_array(name, email, role, status, token_version, email_verified_at) as user from users where id = ?',
    [id],
  )
  const packed = result.rows[0]?.user
  if (typeof packed !== 'string') return undefined
  const [name, email, role, status, token_version, email_verified_at] = JSON.parse(packed) as [
    string,
    string,
    string,
    number,
    number,
    string | null,
  ]
  return { id, name, email, role, status, token_version, email_verified_at }
}

/**
 * The id the next user will get: past both the highest id and the highest
 * ever handed out (AUTOINCREMENT's `sqlite_sequence`), so a deleted user's id,
 * still inside their old tokens, is never given to someone else. Registration
 * signs its tokens with it before the batch that inserts the user: a
 * concurrent registration that took it first makes that batch fail on the
 * primary key (`isUserIdTaken`), and registration tries the next one.
 */
export async function nextUserId(db: Database): Promise<number> {
  const row = await db.first<{ id: number }>(
    `select max(coalesce((select seq from sqlite_sequence where name = 'users'), 0),
                coalesce((select max(id) from users), 0)) + 1 as id`,
  )
  return Number(row?.id ?? 1)
}

/** The insert of a new user with the id given (see `nextUserId`), returning what the tokens need. */
export function userInsert(user: { id: number; name: string; email: string; password: string }, now: string): Statement {
  return {
    sql: `insert into users (id, name, email, password, created_at, updated_at) values (?, ?, ?, ?, ?, ?)
       returning id, name, email, role, status, token_version, email_verified_at`,
    args: [user.id, user.name, user.email, user.password, now, now],
  }
}

/** A write refused because the email is taken (also when another request took it a moment ago). */
export function isEmailTaken(error: unknown): boolean {
  return /UNIQUE constraint failed: users\.email/i.test(messageOf(error))
}

/** A write refused because another registration took the id first. */
export function isUserIdTaken(error: unknown): boolean {
  return /UNIQUE constraint failed: users\.id/i.test(messageOf(error))
}

function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  return error.cause instanceof Error ? `${error.message} ${error.cause.message}` : error.message
}

/**
 * Shows the lockout (decided in its own store, see lockout.ts) on the account
 * with this address, if there is one: the same statement runs for every
 * address, so a failed login costs the same whether the account exists.
 */
export async function recordLoginFailure(
  db: Database,
  email: string,
  failure: { attempts: number; lockedUntil: string | null },
): Promise<void> {
  await db.execute('update users set login_attempts = ?, locked_until = ? where email = ?', [failure.attempts, failure.lockedUntil, email])
}

export async function recordLoginSuccess(db: Database, id: number, rehashed: string | undefined, now: string): Promise<void> {
  if (rehashed === undefined) {
    await db.execute('update users set login_attempts = 0, locked_until = null where id = ? and (login_attempts != 0 or locked_until is not null)', [id])
  } else {
    await db.execute('update users set login_attempts = 0, locked_until = null, password = ?, updated_at = ? where id = ?', [rehashed, now, id])
  }
}

/** Logout and a refresh token's reuse: every token issued before carries an older version and is refused. */
export function tokenVersionIncrement(id: number, now: string): Statement {
  return { sql: 'update users set token_version = token_version + 1, updated_at = ? where id = ?', args: [now, id] }
}

export async function incrementTokenVersion(db: Database, id: number, now: string): Promise<void> {
  await db.execute(tokenVersionIncrement(id, now))
}

/**
 * A new password for the user `owner` names (a subquery: the batch that uses up
 * a reset token): also a new token version, no lock, and the mailbox proven.
 * Returns the account's email.
 */
export function resetPasswordStatement(owner: TokenOwner, password: string, now: string): Statement {
  return {
    sql: `update users set password = ?, token_version = token_version + 1, login_attempts = 0, locked_until = null,
       email_verified_at = coalesce(email_verified_at, ?), updated_at = ? where id = (${owner.sql}) returning email`,
    args: [password, now, now, ...owner.args],
  }
}

/** The user `owner` names (the batch that uses up a verification token) has proven their mailbox. */
export function markEmailVerifiedStatement(owner: TokenOwner, now: string): Statement {
  return {
    sql: `update users set email_verified_at = coalesce(email_verified_at, ?), updated_at = ? where id = (${owner.sql})`,
    args: [now, now, ...owner.args],
  }
}
