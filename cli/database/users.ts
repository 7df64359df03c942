/** `user:role`: a user's role read or changed by email, without SQL. */
import type { Database } from '../../framework/index.ts'
import type { UserRoleJson } from '../contract/index.ts'
import { CliError } from '../output/cli-error.ts'

/** Role names as the `auth:<role>` alias reads them: letters, digits, `_` and `-`. */
export const ROLE_NAME = /^[A-Za-z0-9_-]{1,64}$/

/** Sets (or, without `role`, reads) the role of the user with this email (case-insensitive, as logins match it). */
export async function userRole(db: Database, email: string, role?: string): Promise<UserRoleJson> {
  if (role !== undefined && !ROLE_NAME.test(role)) {
    throw new CliError('E_BAD_ARGUMENTS', `"${role}" is not a role name: use letters, digits, _ or - (at most 64)`, { hint: 'for example: svc user:role you@example.com admin' })
  }
  let user: { email: string; role: string } | undefined
  try {
    user = await db.first<{ email: string; role: string }>('select email, role from users where email = ? collate nocase', [email.trim()])
  } catch (error) {
    throw new CliError('E_NO_USERS', `Cannot read the users table: ${(error as Error).message}`, { hint: 'svc migrate creates it (the auth migrations: svc make:auth)' })
  }
  if (user === undefined) {
    throw new CliError('E_USER_NOT_FOUND', `No user with the email ${email}`, { hint: 'register first (POST /api/auth/register), then run this again' })
  }
  if (role === undefined || role === user.role) return { email: user.email, role: user.role, previous_role: user.role, changed: false }
  // The auth middleware reads the role from the database on every request: the change applies to the user's current tokens at once.
  await db.execute("update users set role = ?, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') where email = ? collate nocase", [role, user.email])
  return { email: user.email, role, previous_role: user.role, changed: true }
}
