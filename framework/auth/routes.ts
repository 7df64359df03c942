/**
 * The authentication routes (under `/api/auth`), exactly as the spec's
 * table; bodies are JSON. See docs/authentication.md for every status.
 */
import * as v from 'valibot'
import { afterResponse } from '../app/conn-info.ts'
import type { Context } from '../context/context.ts'
import { readThenWrite, type Database } from '../database/database.ts'
import { HttpError } from '../http/http-error.ts'
import type { MailMessage } from '../mail/index.ts'
import { defineRoutes, type RouteDefinition } from '../router/define-routes.ts'
import { isoAt, type AuthCore } from './core.ts'
import { resetPasswordMail, verifyEmailMail } from './mails.ts'
import { sha256Hex } from './digest.ts'
import { unauthenticated, type AuthState } from './middleware.ts'
import { createOneTimeToken, isLiveOneTimeToken, newOneTimeToken, oneTimeTokenStatements, useOneTimeToken, type OneTimePurpose } from './one-time-tokens.ts'
import {
  findRefreshToken,
  insertRefreshToken,
  refreshTokenInsert,
  familyRevoke,
  liveInFamily,
  revokeUserRefreshTokens,
  regrantWithinGrace,
  rotateRefreshToken,
  userRefreshTokensRevoke,
  type NewRefreshToken,
} from './refresh-tokens.ts'
import { recordSecurityEvent, securityEventInsert } from './security-events.ts'
import { TokenError, type TokenPair } from './tokens.ts'
import {
  findUserAccess,
  findUserByEmail,
  incrementTokenVersion,
  tokenVersionIncrement,
  isEmailTaken,
  isUserIdTaken,
  markEmailVerifiedStatement,
  nextUserId,
  recordLoginFailure,
  recordLoginSuccess,
  resetPasswordStatement,
  userInsert,
  type UserAccess,
} from './users.ts'
import * as AuthResponses from './responses.ts'
import { EmailBody, LoginBody, RefreshBody, RegisterBody, ResetPasswordBody, TokenBody } from './validation.ts'
import { fieldFailure } from '../validation/field-failure.ts'

export const INVALID_CREDENTIALS = 'Invalid credentials'
export const FORGOT_PASSWORD_MESSAGE = 'If that email address is registered, a password reset link has been sent to it.'

export function authRoutes(core: AuthCore): RouteDefinition {
  const { clock, hasher, tokens, settings, mailer, lockout } = core
  const { maxAttempts, decayMinutes } = settings.loginThrottle
  const registerThrottle = settings.registerThrottle

  /** Signs an access and a refresh token; the refresh token's row, first of a new family unless one is given. */
  async function signPair(user: UserAccess, familyId: string = crypto.randomUUID()): Promise<{ pair: TokenPair; row: NewRefreshToken }> {
    const [access, refresh] = await Promise.all([
      tokens.sign(user.id, user.token_version, 'access'),
      tokens.sign(user.id, user.token_version, 'refresh'),
    ])
    const row = {
      id: refresh.jti,
      userId: user.id,
      familyId,
      tokenHash: await sha256Hex(refresh.token),
      expiresAt: isoAt(refresh.expiresAt),
      now: isoAt(clock.now()),
    }
    return { pair: pair(access.token, refresh.token), row }
  }

  /** Signs a pair and stores the refresh token as the first of a new family (a login). */
  async function issuePair(db: Database, user: UserAccess): Promise<TokenPair> {
    const signed = await signPair(user)
    await insertRefreshToken(db, signed.row)
    return signed.pair
  }

  /**
   * The new account's rows, as one batch: signs the pair for the id the user
   * will get (`nextUserId`), then inserts user, refresh token and verification
   * token together. On D1 another registration may take the id first: its
   * batch then fails on the primary key, nothing was written, and the next id
   * is tried (`readThenWrite`).
   */
  function insertAccount(
    c: Context,
    input: { name: string; email: string; password: string },
    verificationHash: string,
  ): Promise<{ user: UserAccess; tokenPair: TokenPair }> {
    const attempt = async (db: Database) => {
      const nowMs = clock.now()
      const id = await nextUserId(db)
      const expected: UserAccess = { id, name: input.name, email: input.email, role: 'user', status: 1, token_version: 0, email_verified_at: null }
      const signed = await signPair(expected)
      try {
        const [inserted] = await db.batch([
          userInsert({ id, ...input }, isoAt(nowMs)),
          refreshTokenInsert(signed.row),
          ...oneTimeTokenStatements(verificationHash, {
            userId: id,
            purpose: 'verify_email',
            now: isoAt(nowMs),
            expiresAt: oneTimeExpiry('verify_email', nowMs),
          }),
        ])
        return { user: inserted!.rows[0] as unknown as UserAccess, tokenPair: signed.pair }
      } catch (error) {
        if (isEmailTaken(error)) throw fieldFailure(c, 'email', 'unique')
        throw error
      }
    }
    return readThenWrite(c.db, attempt, isUserIdTaken)
  }

  function pair(access: string, refresh: string): TokenPair {
    return { token: access, refresh_token: refresh, token_type: 'Bearer', expires_in: core.config.jwtTtl }
  }

  function locked(untilMs: number): HttpError {
    const seconds = Math.max(1, Math.ceil((untilMs - clock.now()) / 1000))
    const minutes = Math.ceil(seconds / 60)
    return new HttpError(423, `Too many failed login attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`, {
      details: { retry_after: seconds },
      headers: { 'Retry-After': String(seconds) },
    })
  }

  /**
   * Sends a mail after the answer (`afterResponse`: a graceful stop waits for it), so its timing does
   * not reveal whether an account exists. The token it carries is already
   * stored: a mail that fails (and that the app's mailer could not queue
   * for a retry either: `sendOrQueue`) is logged, and the user can ask again
   * (`/verify-email/resend`, `/forgot-password`).
   */
  function inBackground(c: Context, work: () => Promise<void>): void {
    const task = work().catch((error: unknown) => console.error(`[svc auth] sending mail failed: ${(error as Error).message}`))
    afterResponse(c, task)
  }

  /** A one-time token's expiry for `purpose`, from now. */
  function oneTimeExpiry(purpose: OneTimePurpose, nowMs: number): string {
    const minutes = purpose === 'verify_email' ? settings.emailVerificationTtlMinutes : settings.passwordResetTtlMinutes
    return isoAt(nowMs + minutes * 60_000)
  }

  function verificationMail(user: { email: string; name: string }, token: string): MailMessage {
    return verifyEmailMail.to(user.email, {
      name: user.name,
      url: settings.verifyEmailUrl.replace('{token}', encodeURIComponent(token)),
      token,
      minutes: settings.emailVerificationTtlMinutes,
    })
  }

  function resetMail(user: { email: string; name: string }, token: string): MailMessage {
    return resetPasswordMail.to(user.email, {
      name: user.name,
      url: settings.resetPasswordUrl.replace('{token}', encodeURIComponent(token)).replace('{email}', encodeURIComponent(user.email)),
      token,
      minutes: settings.passwordResetTtlMinutes,
    })
  }

  async function register(c: Context<string, { body: typeof RegisterBody }>): Promise<Response> {
    const input = await c.body()
    const db = c.db
    if ((await findUserByEmail(db, input.email)) !== undefined) throw fieldFailure(c, 'email', 'unique')
    // The slow part (argon2id, bounded by the hashing slots) and the token's digest come before the write turn.
    const password = await hasher.hash(input.password)
    const verification = await newOneTimeToken()
    // One batch: the user, their refresh token and their verification token, or none of them
    // (atomic on every driver, D1 included). It holds the write turn only for the inserts and the signing of two JWTs.
    const { user, tokenPair } = await insertAccount(c, { name: input.name, email: input.email, password }, verification.tokenHash)
    inBackground(c, () => mailer.send(verificationMail(user, verification.token)))
    return c.json(
      { ...tokenPair, user: { id: user.id, name: user.name, email: user.email } },
      { status: 201, message: 'User registered successfully' },
    )
  }

  async function login(c: Context<string, { body: typeof LoginBody }>): Promise<Response> {
    const input = await c.body()
    const db = c.db
    const nowMs = clock.now()
    const now = isoAt(nowMs)
    const user = await findUserByEmail(db, input.email)
    // Every address costs the same, known or not, locked or not: one argon2id verify (against a
    // dummy hash for an unknown address), then the same lockout reads and writes.
    const passwordMatches = user === undefined ? await hasher.verifyDummy(input.password) : await hasher.verify(user.password, input.password)
    const lockedUntil = await lockout.lockedUntil(input.email, nowMs)
    // A locked address is refused even with the right password.
    if (lockedUntil !== undefined) throw locked(lockedUntil)
    if (user === undefined || !passwordMatches) {
      const failure = await lockout.fail(input.email, nowMs)
      const lockedAt = failure.lockedUntil === undefined ? null : isoAt(failure.lockedUntil)
      await recordLoginFailure(db, input.email, { attempts: failure.attempts, lockedUntil: lockedAt })
      if (failure.lockedUntil !== undefined) {
        await recordSecurityEvent(db, {
          type: 'account_locked',
          userId: user?.id ?? null,
          ip: c.ip,
          details: { attempts: failure.attempts, locked_until: lockedAt },
          now,
        })
        throw locked(failure.lockedUntil)
      }
      throw unauthenticated(INVALID_CREDENTIALS, false)
    }
    if (user.status !== 1) throw new HttpError(403, 'Account is inactive')
    const rehashed = hasher.needsRehash(user.password) ? await hasher.hash(input.password) : undefined
    await lockout.clear(input.email, nowMs)
    await recordLoginSuccess(db, user.id, rehashed, now)
    const tokenPair = await issuePair(db, user)
    return c.json(
      { ...tokenPair, user: { id: user.id, name: user.name, email: user.email } },
      { message: 'Login successful' },
    )
  }

  async function refresh(c: Context<string, { body: typeof RefreshBody }>): Promise<Response> {
    const input = await c.body()
    const db = c.db
    let claims
    try {
      claims = await tokens.verify(input.refresh_token, 'refresh')
    } catch (error) {
      if (error instanceof TokenError) throw unauthenticated(error.message, true)
      throw error
    }
    const user = await findUserAccess(db, claims.sub)
    if (user === undefined) throw unauthenticated('Invalid token', true)
    if (user.token_version !== claims.ver) throw unauthenticated('Token has been revoked', true)
    if (user.status !== 1) throw new HttpError(403, 'Account is inactive')

    const now = isoAt(clock.now())
    const tokenHash = await sha256Hex(input.refresh_token)
    const access = await tokens.sign(user.id, user.token_version, 'access')
    const next = await tokens.sign(user.id, user.token_version, 'refresh')
    const nextHash = await sha256Hex(next.token)
    // Claim and replacement commit together: a reuse seen by a concurrent request revokes the replacement too.
    const familyId = await rotateRefreshToken(db, tokenHash, {
      id: next.jti,
      userId: user.id,
      tokenHash: nextHash,
      expiresAt: isoAt(next.expiresAt),
      now,
    })
    // Rotated a moment ago (another tab's refresh of the same token won the race): a sibling, not a revocation.
    const graceMs = settings.refreshReuseGraceSeconds * 1000
    const regranted =
      familyId === undefined && graceMs > 0
        ? await regrantWithinGrace(db, tokenHash, isoAt(clock.now() - graceMs), { id: next.jti, userId: user.id, tokenHash: nextHash, expiresAt: isoAt(next.expiresAt), now })
        : undefined
    if (familyId === undefined && regranted === undefined) {
      const record = await findRefreshToken(db, tokenHash)
      if (record?.revoked_reason === 'rotated') {
        // One batch: the family revoked, the token version moved on (the access tokens already handed out stop
        // too, the thief's and the owner's alike) and the event logged, or none of it. Apart, a failure after the
        // first left the refresh tokens revoked and the access tokens working.
        // The event first: its details count the tokens the revoke is about to revoke.
        await db.batch([
          securityEventInsert(
            {
              type: 'refresh_token_reuse',
              userId: record.user_id,
              ip: c.ip,
              details: { family_id: record.family_id, token_id: record.id },
              now,
            },
            { name: 'revoked', ...liveInFamily(record.family_id) },
          ),
          familyRevoke(record.family_id, 'reuse', now),
          tokenVersionIncrement(record.user_id, now),
        ])
      }
      if (record?.revoked_reason === 'rotated' || record?.revoked_reason === 'reuse') {
        throw unauthenticated('Refresh token reuse detected: this session has been revoked, log in again', true)
      }
      throw unauthenticated('Refresh token has been revoked', true)
    }
    return c.json(pair(access.token, next.token))
  }

  async function logout(c: Context): Promise<Response> {
    const now = isoAt(clock.now())
    await incrementTokenVersion(c.db, c.user!.id, now)
    await revokeUserRefreshTokens(c.db, c.user!.id, 'logout', now)
    return c.json(null, { message: 'Logged out successfully' })
  }

  function me(c: Context) {
    const { id, name, email, role } = c.user!
    return { id, name, email, role }
  }

  async function verifyEmail(c: Context<string, { body: typeof TokenBody }>): Promise<Response> {
    const { token } = await c.body()
    const now = isoAt(clock.now())
    const used = await useOneTimeToken(c.db, token, 'verify_email', now, (owner) => [markEmailVerifiedStatement(owner, now)])
    if (used === undefined) throw fieldFailure(c, 'token', 'verification_token')
    return c.json(null, { message: 'Email address verified' })
  }

  /**
   * A new verification link for the signed-in user. The token is stored
   * before the answer (a busy database is a 503 the client can retry); the
   * mail goes after it.
   */
  async function resendVerification(c: Context): Promise<Response> {
    const user = c.user!
    if ((c.state.auth as AuthState).emailVerifiedAt !== null) return c.json(null, { message: 'Email address is already verified' })
    const nowMs = clock.now()
    const token = await createOneTimeToken(c.db, {
      userId: user.id,
      purpose: 'verify_email',
      now: isoAt(nowMs),
      expiresAt: oneTimeExpiry('verify_email', nowMs),
    })
    inBackground(c, () => mailer.send(verificationMail(user, token)))
    return c.json(null, { message: 'Verification link sent' })
  }

  async function forgotPassword(c: Context<string, { body: typeof EmailBody }>): Promise<Response> {
    const { email } = await c.body()
    const user = await findUserByEmail(c.db, email)
    if (user !== undefined && user.status === 1) {
      // After the answer, token and mail alike, so the timing does not tell whether the account exists.
      // The app's database handle, not the request's: the request's trace is finished by then.
      const db = core.database ?? c.db
      inBackground(c, async () => {
        const nowMs = clock.now()
        const token = await createOneTimeToken(db, {
          userId: user.id,
          purpose: 'reset_password',
          now: isoAt(nowMs),
          expiresAt: oneTimeExpiry('reset_password', nowMs),
        })
        await mailer.send(resetMail(user, token))
      })
    }
    return c.json(null, { message: FORGOT_PASSWORD_MESSAGE })
  }

  async function resetPasswordRoute(c: Context<string, { body: typeof ResetPasswordBody }>): Promise<Response> {
    const input = await c.body()
    const db = c.db
    // Refused before the hash: each one holds a hashing slot and its memory, and this route is open to anyone
    // without a throttle (the token is the secret), so made-up tokens filled the slots: 503 for every login.
    if (!(await isLiveOneTimeToken(db, input.token, 'reset_password', isoAt(clock.now())))) throw fieldFailure(c, 'token', 'reset_token')
    const password = await hasher.hash(input.password)
    const now = isoAt(clock.now())
    // The new password, the refresh tokens revoked and the token used up: all of it or none (a retry can still use the link).
    const used = await useOneTimeToken(db, input.token, 'reset_password', now, (owner) => [
      resetPasswordStatement(owner, password, now),
      userRefreshTokensRevoke(owner, 'password_reset', now),
    ])
    if (used === undefined) throw fieldFailure(c, 'token', 'reset_token')
    const email = used.results[0]?.rows[0]?.email
    if (typeof email === 'string') await lockout.clear(email, clock.now())
    return c.json(null, { message: 'Your password has been reset' })
  }

  Object.defineProperty(resetPasswordRoute, 'name', { value: 'resetPassword' })

  // The responses and errors below document the handlers above (svc make:openapi); keep them in step.
  const busy = { 503: 'The service is busy (every password-hashing slot taken); try again after Retry-After' }
  const inactive = { 403: 'Account is inactive' }
  return defineRoutes((r) => {
    r.group({ prefix: 'auth' }, (r) => {
      r.post('/register', register)
        .body(RegisterBody)
        .throttle(registerThrottle.maxAttempts, registerThrottle.decayMinutes)
        .response(AuthResponses.TokenPairWithUser, { status: 201 })
        .errors(busy)
      r.post('/login', login)
        .body(LoginBody)
        .throttle(maxAttempts, decayMinutes)
        .response(AuthResponses.TokenPairWithUser)
        .errors({ 401: INVALID_CREDENTIALS, ...inactive, 423: 'Too many failed login attempts: the address is locked for a while (Retry-After)', ...busy })
      r.post('/refresh', refresh)
        .body(RefreshBody)
        .response(AuthResponses.TokenPair)
        .errors({ 401: 'The refresh token is invalid, expired, revoked or reused (reuse revokes the whole session)', ...inactive })
      r.post('/logout', logout).middleware('auth').response(v.null())
      r.get('/me', me).middleware('auth').response(AuthResponses.CurrentUser)
      r.post('/verify-email', verifyEmail).body(TokenBody).response(v.null())
      r.post('/verify-email/resend', resendVerification).middleware('auth').throttle(6, 1).response(v.null())
      r.post('/forgot-password', forgotPassword).body(EmailBody).throttle(6, 1).response(v.null())
      r.post('/reset-password', resetPasswordRoute).body(ResetPasswordBody).response(v.null()).errors(busy)
    })
  })
}

