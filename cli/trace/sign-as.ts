/**
 * `--as=<email>`: a fresh access token for a user of the app's database, so
 * that a trace whose Authorization header was redacted can be replayed.
 * Development and test only: in production it is refused.
 */
import type { AppConfig, Database } from '../../framework/index.ts'
import { systemClock } from '../../framework/auth/clock.ts'
import { importSigningKeys, resolveKeyMaterial } from '../../framework/auth/keys.ts'
import { createTokenService } from '../../framework/auth/tokens.ts'
import { readJwtKeyFiles } from '../../framework/node/index.ts'
import type { AuthTokenJson } from '../contract/routes.ts'
import { CliError } from '../output/cli-error.ts'
import type { Project } from '../project/project.ts'

export interface UserRef {
  email?: string
  id?: number | string
}

export interface UserRow {
  id: number
  email: string
  name: string
  role: string
}

/** Users of the app's database by id (as text); empty when it has no users table. */
export async function usersById(db: Database | undefined, ids: Array<number | string>): Promise<Map<string, UserRow>> {
  const found = new Map<string, UserRow>()
  const numeric = [...new Set(ids.map(Number).filter(Number.isSafeInteger))]
  if (db === undefined || numeric.length === 0) return found
  try {
    const result = await db.execute(`select id, email, name, role from users where id in (${numeric.map(() => '?').join(', ')})`, numeric)
    for (const row of result.rows as unknown as UserRow[]) found.set(String(row.id), { id: Number(row.id), email: String(row.email), name: String(row.name), role: String(row.role) })
  } catch {
    // no users table (an app without auth): nobody to name
  }
  return found
}

/** The token `--as` and `auth:token` sign, with whom it is for. */
export async function signedAccessToken(project: Project, config: AppConfig, db: Database, user: UserRef): Promise<AuthTokenJson> {
  if (config.env === 'production') {
    throw new CliError('E_AS_PRODUCTION', 'svc signs tokens (--as, auth:token) only in development and test (APP_ENV=production here)', {
      hint: 'replay against a development copy, or print the request with --format=curl and add a real token yourself',
    })
  }
  let row: { id: number; token_version: number; status: number; email: string; name: string; role: string } | undefined
  try {
    const result =
      user.email !== undefined
        ? await db.execute('select id, token_version, status, email, name, role from users where email = ?', [user.email])
        : await db.execute('select id, token_version, status, email, name, role from users where id = ?', [Number(user.id)])
    row = result.rows[0] as unknown as typeof row
  } catch (error) {
    throw new CliError('E_AS_NO_USERS', `Cannot read the users table: ${(error as Error).message}`, { hint: 'run svc migrate' })
  }
  if (row === undefined) {
    throw new CliError('E_AS_UNKNOWN_USER', `No user ${user.email ?? `#${user.id}`} in the app's database`, {
      hint: 'register the user first (POST /api/auth/register), or pick another --as',
    })
  }
  const keys = importSigningKeys(config, resolveKeyMaterial(config, readJwtKeyFiles(project.storageDir)))
  const tokens = createTokenService(config, () => keys, systemClock)
  const signed = await tokens.sign(Number(row.id), Number(row.token_version), 'access')
  return {
    user: { id: Number(row.id), email: String(row.email), name: String(row.name), role: String(row.role) },
    token: signed.token,
    token_type: 'Bearer',
    expires_in: config.jwtTtl,
  }
}

/** Just the token (`svc/testing/project`'s `tokenFor`). */
export async function signAccessToken(project: Project, config: AppConfig, db: Database, user: UserRef): Promise<string> {
  return (await signedAccessToken(project, config, db, user)).token
}
