/**
 * The `auth` middleware, in the spec's order: extract the bearer token =>
 * verify signature and expiry => token_version equals the stored value =>
 * status is 1 (else 403) => attach the user. One indexed read per request.
 */
import type { Context } from '../context/context.ts'
import { HttpError } from '../http/http-error.ts'
import type { Middleware } from '../router/types.ts'
import type { AuthCore } from './core.ts'
import { TokenError, type TokenClaims } from './tokens.ts'
import { findUserAccess } from './users.ts'

/** What `auth` leaves in `c.state.auth` beside `c.user`. */
export interface AuthState {
  claims: TokenClaims
  emailVerifiedAt: string | null
}

declare module '../context/context.ts' {
  interface ContextState {
    /** Set by the `auth` middleware. */
    auth?: AuthState
  }
}

const REALM = 'Bearer realm="api"'

/** 401 with `WWW-Authenticate: Bearer` (RFC 6750: `error="invalid_token"` when a token was sent). */
export function unauthenticated(message: string, invalidToken: boolean): HttpError {
  const challenge = invalidToken ? `${REALM}, error="invalid_token", error_description="${message}"` : REALM
  return new HttpError(401, message, { headers: { 'WWW-Authenticate': challenge } })
}

export function bearerToken(c: Context): string | undefined {
  const header = c.headers.get('authorization')
  if (header === null) return undefined
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header)
  return match?.[1]
}

/**
 * No bearer token to verify. Another scheme (`Basic ...`) sent no token at all:
 * RFC 6750 3.1 answers it as a request without credentials (no error code),
 * and the message says which scheme this API takes. A Bearer header whose
 * token is empty or malformed is an invalid token.
 */
function missingBearer(header: string | null): HttpError {
  if (header === null) return unauthenticated('Unauthenticated', false)
  if (!/^Bearer(\s|$)/i.test(header)) return unauthenticated('Unauthenticated: send the access token as Authorization: Bearer <token>', false)
  return unauthenticated('Invalid token', true)
}

export function authenticate(core: AuthCore, roles: readonly string[] = []): Middleware {
  return async function auth(c, next) {
    const token = bearerToken(c)
    if (token === undefined) throw missingBearer(c.headers.get('authorization'))
    let claims: TokenClaims
    try {
      claims = await core.tokens.verify(token, 'access')
    } catch (error) {
      if (error instanceof TokenError) throw unauthenticated(error.message, true)
      throw error
    }
    const user = await findUserAccess(c.db, claims.sub)
    if (user === undefined) throw unauthenticated('Invalid token', true)
    if (user.token_version !== claims.ver) throw unauthenticated('Token has been revoked', true)
    if (user.status !== 1) throw new HttpError(403, 'Account is inactive')
    c.user = { id: user.id, name: user.name, email: user.email, role: user.role }
    c.state.auth = { claims, emailVerifiedAt: user.email_verified_at }
    if (roles.length > 0 && !roles.includes(user.role)) throw new HttpError(403, 'Forbidden')
    return next()
  }
}

/**
 * For controllers: the authenticated user when their role is one of `roles`,
 * else 403 `Forbidden` (401 when the route has no `auth`).
 * @example const admin = requireRole(c, 'admin', 'moderator')
 */
export function requireRole(c: Context, ...roles: string[]): NonNullable<Context['user']> {
  if (c.user === undefined) throw unauthenticated('Unauthenticated', false)
  if (!roles.includes(c.user.role)) throw new HttpError(403, 'Forbidden')
  return c.user
}

/** The `verified` alias: after `auth`, refuses users whose email address is not verified (403). */
export const requireVerifiedEmail: Middleware = async function verified(c, next) {
  const state = c.state.auth
  if (state === undefined) throw unauthenticated('Unauthenticated', false)
  if (state.emailVerifiedAt === null) throw new HttpError(403, 'Email address is not verified')
  return next()
}
