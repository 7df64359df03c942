/**
 * The authentication routes (under `/api/auth`), exactly as the spec's
 * table; bodies are JSON. See docs/authentication.md for every status.
 */
import type { Context } from '../context/context.ts'
import type { Database } from '../database/database.ts'
import { HttpError, ValidationError } from '../http/http-error.ts'
import { defineRoutes, type RouteDefinition } from '../router/define-routes.ts'
import { isoAt, type AuthCore } from './core.ts'
import { sha256Hex } from './digest.ts'
import { unauthenticated } from './middleware.ts'
import { consumeOneTimeToken, createOneTimeToken } from './one-time-tokens.ts'
import { claimRefreshToken, findRefreshToken, insertRefreshToken, revokeFamily, revokeUserRefreshTokens } from './refresh-tokens.ts'
import { recordSecurityEvent } from './security-events.ts'
import { TokenError, type TokenPair } from './tokens.ts'
import {
  findUserAccess,
  findUserByEmail,
  incrementTokenVersion,
  insertUser,
  markEmailVerified,
  recordLoginFailure,
  recordLoginSuccess,
  resetPassword,
  type UserAccess,
} from './users.ts'
import { EmailBody, LoginBody, RefreshBody, RegisterBody, ResetPasswordBody, TokenBody } from './validation.ts'

export const INVALID_CREDENTIALS = 'Invalid credentials'
export const FORGOT_PASSWORD_MESSAGE = 'If that email address is registered, a password reset link has been sent to it.'

export function authRoutes(core: AuthCore): RouteDefinition {
  const { clock, hasher, tokens, settings, mailer } = core
  const lockoutMs = settings.lockoutMinutes * 60_000
  const { maxAttempts, decayMinutes } = settings.loginThrottle

  /** Signs a pair and stores the refresh token as the first of a new family (a login). */
  async function issuePair(db: Database, user: UserAccess): Promise<TokenPair> {
    const access = await tokens.sign(user.id, user.token_version, 'access')
    const refresh = await tokens.sign(user.id, user.token_version, 'refresh')
    await insertRefreshToken(db, {
      id: refresh.jti,
      userId: user.id,
      familyId: crypto.randomUUID(),
      tokenHash: await sha256Hex(refresh.token),
      expiresAt: isoAt(refresh.expiresAt),
      now: isoAt(clock.now()),
    })
    return pair(access.token, refresh.token)
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
   * Runs mail work after the answer (Workers: `waitUntil`), so timing does not
   * reveal whether an account exists. It uses the app's database handle, not
   * the request's: the request's trace is finished by then.
   */
  function inBackground(c: Context, work: (db: Database) => Promise<void>): void {
    const db = core.database ?? c.db
    const task = work(db).catch((error: unknown) => console.error(`[svc auth] sending mail failed: ${(error as Error).message}`))
    c.executionCtx?.waitUntil(task)
  }

  /** Creates a one-time token of `purpose` for the user and mails it: `lines` writes the mail around the token. */
  async function mailOneTimeToken(
    db: Database,
    user: { id: number; email: string; name: string },
    mail: { purpose: 'verify_email' | 'reset_password'; ttlMinutes: number; subject: string; lines: (token: string) => string[] },
  ): Promise<void> {
    const now = clock.now()
    const token = await createOneTimeToken(db, {
      userId: user.id,
      purpose: mail.purpose,
      now: isoAt(now),
      expiresAt: isoAt(now + mail.ttlMinutes * 60_000),
    })
    await mailer.send({ to: user.email, subject: mail.subject, text: [`Hello ${user.name},`, '', ...mail.lines(token)].join('\n') })
  }

  function sendVerification(db: Database, user: { id: number; email: string; name: string }): Promise<void> {
    return mailOneTimeToken(db, user, {
      purpose: 'verify_email',
      ttlMinutes: settings.emailVerificationTtlMinutes,
      subject: 'Verify your email address',
      lines: (token) => [
        'Confirm your email address by opening this link:',
        settings.verifyEmailUrl.replace('{token}', encodeURIComponent(token)),
        '',
        `Or send POST /api/auth/verify-email with {"token": "${token}"}.`,
        `The link works once and expires in ${settings.emailVerificationTtlMinutes} minutes.`,
      ],
    })
  }

  async function register(c: Context<string, { body: typeof RegisterBody }>): Promise<Response> {
    const input = await c.body()
    const db = c.db
    if ((await findUserByEmail(db, input.email)) !== undefined) throw emailTaken()
    const password = await hasher.hash(input.password)
    // One transaction: a user is never left without the tokens the answer promised.
    const { user, tokenPair } = await db.transaction(async (tx) => {
      const user = await insertUser(tx, { name: input.name, email: input.email, password }, isoAt(clock.now()))
      if (user === undefined) throw emailTaken()
      return { user, tokenPair: await issuePair(tx, user) }
    })
    inBackground(c, (db) => sendVerification(db, user))
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
    if (user === undefined) {
      await hasher.verifyDummy(input.password)
      // Unknown emails lock like real accounts do, so a lockout does not tell that an account exists.
      const failures = await core.throttleStore.hit(`auth-login-failures:${input.email.toLowerCase()}`, lockoutMs, nowMs)
      if (failures.count >= settings.lockoutAttempts) throw locked(failures.resetAt)
      throw unauthenticated(INVALID_CREDENTIALS, false)
    }
    if (user.locked_until !== null && user.locked_until > now) throw locked(Date.parse(user.locked_until))
    if (!(await hasher.verify(user.password, input.password))) {
      const failure = await recordLoginFailure(db, user.id, {
        now,
        threshold: settings.lockoutAttempts,
        lockUntil: isoAt(nowMs + lockoutMs),
      })
      if (failure.lockedUntil !== null && failure.lockedUntil > now) {
        await recordSecurityEvent(db, {
          type: 'account_locked',
          userId: user.id,
          ip: c.ip,
          details: { attempts: failure.attempts, locked_until: failure.lockedUntil },
          now,
        })
        throw locked(Date.parse(failure.lockedUntil))
      }
      throw unauthenticated(INVALID_CREDENTIALS, false)
    }
    if (user.status !== 1) throw new HttpError(403, 'Account is inactive')
    const rehashed = hasher.needsRehash(user.password) ? await hasher.hash(input.password) : undefined
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
    const familyId = await db.transaction(async (tx) => {
      const family = await claimRefreshToken(tx, tokenHash, next.jti, now)
      if (family !== undefined) {
        await insertRefreshToken(tx, { id: next.jti, userId: user.id, familyId: family, tokenHash: nextHash, expiresAt: isoAt(next.expiresAt), now })
      }
      return family
    })
    if (familyId === undefined) {
      const record = await findRefreshToken(db, tokenHash)
      if (record?.revoked_reason === 'rotated') {
        const revoked = await revokeFamily(db, record.family_id, 'reuse', now)
        await recordSecurityEvent(db, {
          type: 'refresh_token_reuse',
          userId: record.user_id,
          ip: c.ip,
          details: { family_id: record.family_id, token_id: record.id, revoked },
          now,
        })
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
    const userId = await consumeOneTimeToken(c.db, token, 'verify_email', now)
    if (userId === undefined) throw new ValidationError({ token: ['This verification token is invalid or has expired.'] })
    await markEmailVerified(c.db, userId, now)
    return c.json(null, { message: 'Email address verified' })
  }

  async function forgotPassword(c: Context<string, { body: typeof EmailBody }>): Promise<Response> {
    const { email } = await c.body()
    const db = c.db
    const user = await findUserByEmail(db, email)
    if (user !== undefined && user.status === 1) {
      inBackground(c, (db) =>
        mailOneTimeToken(db, user, {
          purpose: 'reset_password',
          ttlMinutes: settings.passwordResetTtlMinutes,
          subject: 'Reset your password',
          lines: (token) => [
            'Someone asked to reset the password of your account. If it was you, open this link:',
            settings.resetPasswordUrl.replace('{token}', encodeURIComponent(token)).replace('{email}', encodeURIComponent(user.email)),
            '',
            `Or send POST /api/auth/reset-password with {"token": "${token}", "password": "...", "password_confirmation": "..."}.`,
            `The link works once and expires in ${settings.passwordResetTtlMinutes} minutes. If it was not you, ignore this mail.`,
          ],
        }),
      )
    }
    return c.json(null, { message: FORGOT_PASSWORD_MESSAGE })
  }

  async function resetPasswordRoute(c: Context<string, { body: typeof ResetPasswordBody }>): Promise<Response> {
    const input = await c.body()
    const db = c.db
    const password = await hasher.hash(input.password)
    const now = isoAt(clock.now())
    const userId = await consumeOneTimeToken(db, input.token, 'reset_password', now)
    if (userId === undefined) throw new ValidationError({ token: ['This password reset token is invalid or has expired.'] })
    await resetPassword(db, userId, password, now)
    await revokeUserRefreshTokens(db, userId, 'password_reset', now)
    return c.json(null, { message: 'Your password has been reset' })
  }

  Object.defineProperty(resetPasswordRoute, 'name', { value: 'resetPassword' })

  return defineRoutes((r) => {
    r.group({ prefix: 'auth' }, (r) => {
      r.post('/register', register).body(RegisterBody)
      r.post('/login', login).body(LoginBody).throttle(maxAttempts, decayMinutes)
      r.post('/refresh', refresh).body(RefreshBody)
      r.post('/logout', logout).middleware('auth')
      r.get('/me', me).middleware('auth')
      r.post('/verify-email', verifyEmail).body(TokenBody)
      r.post('/forgot-password', forgotPassword).body(EmailBody).throttle(6, 1)
      r.post('/reset-password', resetPasswordRoute).body(ResetPasswordBody)
    })
  })
}

function emailTaken(): ValidationError {
  return new ValidationError({ email: ['The email has already been taken.'] })
}
