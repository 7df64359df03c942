/**
 * The sessions `svc t --as=<name>` keeps: one file per name in
 * `storage/tokens/` (folder mode 700, files mode 600), holding the token pair
 * of the server it was issued by, and the password when svc created the user
 * itself (development only). Written to a temporary file and renamed, so a
 * concurrent `svc t` reads the old session or the new one, never half.
 */
import { randomBytes } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { CliError } from '../output/cli-error.ts'

export interface StoredSession {
  name: string
  email: string
  /** The server (`http://127.0.0.1:8080`) that issued the tokens. */
  base_url: string
  token: string
  refresh_token: string
  /** When the access token expires, milliseconds since the epoch. */
  expires_at: number
  /** Only for a user svc registered itself (development), so that it can log in again once the refresh token is gone. */
  password: string | null
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._+@-]{0,63}$/

export function tokenFolder(storageDir: string): string {
  return join(storageDir, 'tokens')
}

export function sessionFile(storageDir: string, name: string): string {
  if (!NAME.test(name)) {
    throw new CliError('E_BAD_OPTION', `--as takes a name or an email (letters, digits, . _ + @ -; at most 64), got "${name}"`)
  }
  return join(tokenFolder(storageDir), `${name}.json`)
}

export function readSession(storageDir: string, name: string): StoredSession | undefined {
  const file = sessionFile(storageDir, name)
  if (!existsSync(file)) return undefined
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<StoredSession>
    if (typeof parsed.token !== 'string' || typeof parsed.refresh_token !== 'string' || typeof parsed.expires_at !== 'number') return undefined
    return parsed as StoredSession
  } catch {
    // A damaged file is a session to start again, not an error.
    return undefined
  }
}

export function writeSession(storageDir: string, session: StoredSession): string {
  const folder = tokenFolder(storageDir)
  mkdirSync(folder, { recursive: true, mode: 0o700 })
  chmodSync(folder, 0o700)
  const file = sessionFile(storageDir, session.name)
  const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`
  writeFileSync(temporary, `${JSON.stringify(session, null, 2)}\n`, { mode: 0o600 })
  // The mode given to writeFileSync passes through the umask; set it outright.
  chmodSync(temporary, 0o600)
  renameSync(temporary, file)
  return file
}

export function forgetSession(storageDir: string, name: string): void {
  rmSync(sessionFile(storageDir, name), { force: true })
}
