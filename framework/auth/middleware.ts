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

/**
 * The token of `Authorization: Bearer <token>`: the scheme in any case, then
 * one or more spaces (RFC 7235: `1*SP`, not a tab), then a token68.
 */
export function bearerToken(c: Context): string | undefined {
  const header = c.headers.get('authorization')
  if (header === null) return undefined
  const match = BEARER_CREDENTIALS.exec(header)
  return match?.[1]
}

const BEARER_CREDENTIALS = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i
const SEND_AS = 'send the access token as Authorization: Bearer <token>'

/**
 * No bearer token to verify; each answer says what to send instead. Another
 * scheme (`Basic ...`, a bare token) sent no token at all: RFC 6750 3.1
 * answers it as a request without credentials (no error code). A header in
 * the Bearer scheme whose token is missing, cut from the scheme by a tab or
 * another whitespace, or not one token68 word is an invalid token, and the
 * message names what is wrong: a valid token behind a tab used to be answered
 * a bare `Invalid token`, as if the token itself were bad. No message has
 * `token: <word>`: the trace's redactor reads that as a secret field's value.
 */
function missingBearer(header: string | null): HttpError {
  if (header === null) return unauthenticated('Unauthenticated', false)
  const bearer = /^Bearer(\s*)(.*)$/is.exec(header)
  const separator = bearer?.[1] ?? ''
  const credentials = bearer?.[2] ?? ''
  // `Basic ...`, a bare token, `BearerXYZ`, `Bearer:xyz`: not the Bearer scheme.
  if (bearer === null || (separator === '' && credentials !== '')) return unauthenticated(`Unauthenticated: ${SEND_AS}`, false)
  if (credentials.trim() === '') return unauthenticated(`Invalid token (none after Bearer): ${SEND_AS}`, true)
  if (/[^ ]/.test(separator)) return unauthenticated(`Invalid token (separate it from Bearer with a space, not a tab or another whitespace): ${SEND_AS}`, true)
  return unauthenticated(`Invalid token (more than one word after Bearer, or characters no token has): ${SEND_AS}`, true)
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
