/**
 * Access and refresh tokens (JWT, jose). Verification accepts the configured
 * algorithm only (never the header's own `alg`, never `none`), requires
 * sub/iat/exp/jti, a token type (`typ`: access or refresh, neither accepted
 * for the other) and the token version (`ver`), and iss/aud when configured.
 * A token not valid yet (`nbf`, or `iat`, later than the clock plus
 * CLOCK_SKEW_SECONDS) is refused as such; `exp` has no leeway.
 */
import { errors, jwtVerify, SignJWT, type JWTPayload } from 'jose'
import type { AppConfig } from '../config/config.ts'
import type { Clock } from './clock.ts'
import type { SigningKeys } from './keys.ts'

export type TokenType = 'access' | 'refresh'

export interface TokenClaims {
  /** The user id. */
  sub: number
  jti: string
  typ: TokenType
  /** The user's token_version when the token was issued. */
  ver: number
  iat: number
  exp: number
}

export interface SignedToken {
  token: string
  jti: string
  /** Milliseconds since the epoch. */
  expiresAt: number
}

export interface TokenPair {
  token: string
  refresh_token: string
  token_type: 'Bearer'
  expires_in: number
}

/** Why a token was refused; always answered as 401. */
export class TokenError extends Error {
  readonly reason: 'expired' | 'not_yet_valid' | 'invalid'
  constructor(reason: 'expired' | 'not_yet_valid' | 'invalid', message: string) {
    super(message)
    this.name = 'TokenError'
    this.reason = reason
  }
}

/**
 * How far ahead of this process's clock `nbf` and `iat` may be. A token is
 * valid from the second it is signed (nbf = iat = the signer's clock), so
 * another instance whose clock is a little behind would refuse a fresh login
 * without it. `exp` gets none: a token refused a few seconds early is
 * refreshed, and a revoked lifetime must not grow.
 */
export const CLOCK_SKEW_SECONDS = 60

/** Says so rather than "Invalid token": the client's clock or the token's issuer is ahead, and waiting may be the fix. */
function notYetValid(): TokenError {
  return new TokenError('not_yet_valid', 'Token is not yet valid')
}

/** Longer than any token svc issues: refused before parsing. */
const MAX_TOKEN_LENGTH = 8192

export interface TokenService {
  sign(userId: number, tokenVersion: number, type: TokenType): Promise<SignedToken>
  verify(token: string, expected: TokenType): Promise<TokenClaims>
}

/**
 * @param cacheSize How many verified access tokens to remember (0: none). A
 *   client sends the same access token until it expires; a token already
 *   verified with this process's key skips the signature check (its
 *   nbf/exp are still checked against the clock on every use).
 */
export function createTokenService(config: AppConfig, keys: () => Promise<SigningKeys>, clock: Clock, cacheSize = 0): TokenService {
  const ttl: Record<TokenType, number> = { access: config.jwtTtl, refresh: config.jwtRefreshTtl }
  const verified = new Map<string, TokenClaims & { nbf: number }>()

  return {
    async sign(userId, tokenVersion, type) {
      const { algorithm, signingKey, kid } = await keys()
      const now = Math.floor(clock.now() / 1000)
      const jti = crypto.randomUUID()
      const jwt = new SignJWT({ typ: type, ver: tokenVersion })
        .setProtectedHeader(kid === undefined ? { alg: algorithm, typ: 'JWT' } : { alg: algorithm, typ: 'JWT', kid })
        .setSubject(String(userId))
        .setIssuedAt(now)
        .setNotBefore(now)
        .setExpirationTime(now + ttl[type])
        .setJti(jti)
      if (config.jwtIssuer !== undefined) jwt.setIssuer(config.jwtIssuer)
      if (config.jwtAudience !== undefined) jwt.setAudience(config.jwtAudience)
      return { token: await jwt.sign(signingKey), jti, expiresAt: (now + ttl[type]) * 1000 }
    },

    async verify(token, expected) {
      if (token.length > MAX_TOKEN_LENGTH) throw new TokenError('invalid', 'Invalid token')
      if (expected === 'access' && cacheSize > 0) {
        const known = verified.get(token)
        if (known !== undefined) {
          const now = Math.floor(clock.now() / 1000)
          if (now + CLOCK_SKEW_SECONDS >= known.nbf && now < known.exp) return { sub: known.sub, jti: known.jti, typ: known.typ, ver: known.ver, iat: known.iat, exp: known.exp }
          verified.delete(token)
        }
      }
      const { algorithm, verificationKey } = await keys()
      let payload: JWTPayload
      const now = Math.floor(clock.now() / 1000)
      try {
        ;({ payload } = await jwtVerify(token, verificationKey, {
          algorithms: [algorithm],
          currentDate: new Date(clock.now()),
          // Applies to exp as well in jose; exp is checked again below without it.
          clockTolerance: CLOCK_SKEW_SECONDS,
          requiredClaims: ['sub', 'iat', 'exp', 'jti'],
          ...(config.jwtIssuer === undefined ? {} : { issuer: config.jwtIssuer }),
          ...(config.jwtAudience === undefined ? {} : { audience: config.jwtAudience }),
        }))
      } catch (error) {
        if (error instanceof errors.JWTExpired) throw new TokenError('expired', 'Token has expired')
        if (error instanceof errors.JWTClaimValidationFailed && error.claim === 'nbf' && error.reason === 'check_failed') throw notYetValid()
        throw new TokenError('invalid', 'Invalid token')
      }
      const { sub, jti, typ, ver, iat, exp } = payload as JWTPayload & { typ?: unknown; ver?: unknown }
      // jose leaves a future iat alone unless maxTokenAge is set: a token "issued" later than now was not issued by this clock.
      if (iat! > now + CLOCK_SKEW_SECONDS) throw notYetValid()
      if (exp! <= now) throw new TokenError('expired', 'Token has expired')
      if (typ !== expected) {
        // Not "Invalid token: not ...": a trace redacts the word after `token:` as a secret, and the message would read the other way.
        throw new TokenError('invalid', expected === 'access' ? 'Invalid token (not an access token)' : 'Invalid token (not a refresh token)')
      }
      if (typeof sub !== 'string' || !/^[1-9]\d{0,15}$/.test(sub) || typeof jti !== 'string' || !Number.isSafeInteger(ver) || (ver as number) < 0) {
        throw new TokenError('invalid', 'Invalid token')
      }
      const claims: TokenClaims = { sub: Number(sub), jti, typ: expected, ver: ver as number, iat: iat!, exp: exp! }
      if (expected === 'access' && cacheSize > 0) {
        // Oldest first out: a Map keeps insertion order.
        if (verified.size >= cacheSize) verified.delete(verified.keys().next().value!)
        verified.set(token, { ...claims, nbf: Math.max(typeof payload.nbf === 'number' ? payload.nbf : iat!, iat!) })
      }
      return claims
    },
  }
}
