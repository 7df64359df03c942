/**
 * `svc t --as=<name>`: a bearer token for <name>, through the app's own auth
 * routes. In order:
 *
 * 1. the kept access token, while it has more than a few seconds left;
 * 2. else the kept refresh token (`POST /api/auth/refresh`, which rotates it);
 * 3. else a login (`POST /api/auth/login`) with the password svc created the
 *    user with, or the one in SVC_AS_PASSWORD;
 * 4. else, in development and test only, a registration
 *    (`POST /api/auth/register`) with a generated password, which is kept.
 *
 * `<name>` is an email, or the part before `@example.com` (the example's
 * seeded users: `--as=admin`, `--as=user`). Sessions are kept per name in
 * storage/tokens/ (token-store.ts). A request whose token the app refuses
 * (401, invalid_token: a logout, a new secret) gets one new token and is sent
 * again (the command does that).
 */
import { randomBytes } from 'node:crypto'
import type { AppEnvironment } from '../../framework/index.ts'
import { CliError } from '../output/cli-error.ts'
import { send, type Exchange } from './send.ts'
import { readSession, writeSession, type StoredSession } from './token-store.ts'

/** A token with less than this left is renewed before it is sent. */
const EXPIRY_MARGIN_MS = 5_000

export interface SessionContext {
  storageDir: string
  /** The server (`http://127.0.0.1:8080`). */
  baseUrl: string
  env: AppEnvironment
  /** SVC_AS_PASSWORD: the password of a user svc did not create. */
  password: string | undefined
  /** Tells the user what happened (registered, refreshed): stderr. */
  note(text: string): void
  now?: () => number
}

export function emailFor(name: string): string {
  return name.includes('@') ? name : `${name}@example.com`
}

/** A bearer token for `name`; `refused`: the last one was answered 401, get another. */
export async function sessionToken(context: SessionContext, name: string, refused = false): Promise<string> {
  const now = context.now ?? Date.now
  const saved = readSession(context.storageDir, name)
  const current = saved?.base_url === context.baseUrl ? saved : undefined
  if (current !== undefined && !refused && current.expires_at - EXPIRY_MARGIN_MS > now()) return current.token
  if (current !== undefined) {
    const refreshed = await post(context, '/api/auth/refresh', { refresh_token: current.refresh_token })
    if (refreshed.status === 200) {
      context.note(`--as=${name}: access token renewed with the refresh token`)
      return keep(context, name, current.email, refreshed, current.password)
    }
  }
  return logIn(context, name, saved?.password ?? null)
}

async function logIn(context: SessionContext, name: string, ownPassword: string | null): Promise<string> {
  const email = emailFor(name)
  const password = context.password ?? ownPassword
  const mayRegister = context.env !== 'production'
  if (password !== null) {
    const login = await post(context, '/api/auth/login', { email, password })
    if (login.status === 200) return keep(context, name, email, login, context.password === undefined ? ownPassword : null)
    // A user svc created may be gone (migrate:fresh): registered again below. Anything else is the user's to fix.
    if (!(login.status === 401 && context.password === undefined && mayRegister)) throw refused(`log in as ${email}`, login, name)
  }
  if (!mayRegister) {
    throw new CliError('E_AS_PASSWORD', `--as=${name} needs ${email}'s password (svc registers users only in development and test)`, {
      hint: `give it once: SVC_AS_PASSWORD=<password> svc t ... --as=${name} (the tokens are kept, the password is not)`,
    })
  }
  const generated = randomBytes(18).toString('base64url')
  const register = await post(context, '/api/auth/register', { name, email, password: generated, password_confirmation: generated })
  if (register.status === 201) {
    context.note(`--as=${name}: registered ${email} (APP_ENV=${context.env}); its password is kept with the tokens in storage/tokens/${name}.json`)
    return keep(context, name, email, register, generated)
  }
  if (register.status === 422 && JSON.stringify(register.body).includes('already been taken')) {
    throw new CliError('E_AS_PASSWORD', `${email} exists and svc does not know its password`, {
      hint: `give it once: SVC_AS_PASSWORD=<password> svc t ... --as=${name} (the tokens are kept, the password is not)`,
    })
  }
  throw refused(`register ${email}`, register, name)
}

function keep(context: SessionContext, name: string, email: string, answer: Exchange, password: string | null): string {
  const data = (answer.body as { data?: { token?: unknown; refresh_token?: unknown; expires_in?: unknown } } | null)?.data
  if (typeof data?.token !== 'string' || typeof data.refresh_token !== 'string' || typeof data.expires_in !== 'number') {
    throw new CliError('E_AS_LOGIN', `The auth route answered ${answer.status} without a token pair`, { hint: 'is --url an svc app?' })
  }
  const session: StoredSession = {
    name,
    email,
    base_url: context.baseUrl,
    token: data.token,
    refresh_token: data.refresh_token,
    expires_at: (context.now ?? Date.now)() + data.expires_in * 1000,
    password,
  }
  writeSession(context.storageDir, session)
  return session.token
}

function post(context: SessionContext, path: string, json: Record<string, string>): Promise<Exchange> {
  return send({ method: 'POST', url: `${context.baseUrl}${path}`, headers: [], json })
}

function refused(what: string, answer: Exchange, name: string): CliError {
  const message = (answer.body as { error?: unknown; message?: unknown } | null)?.error ?? (answer.body as { message?: unknown } | null)?.message
  return new CliError('E_AS_LOGIN', `Could not ${what}: ${answer.status}${typeof message === 'string' ? ` ${message}` : ''}`, {
    hint: answer.status === 401 ? `the password is wrong: SVC_AS_PASSWORD=<password> svc t ... --as=${name}` : answer.status === 429 ? 'throttled: wait (Retry-After) and try again' : 'see the trace: svc why',
  })
}
