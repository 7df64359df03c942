/**
 * What the auth routes answer in `data`, as valibot schemas declared on the
 * routes (`.response(TokenPairWithUser, { status: 201 })`): documentation for
 * the API description (svc make:openapi), not checked at run time. The
 * handlers in routes.ts build exactly these shapes.
 */
import * as v from 'valibot'

const id = v.pipe(v.number(), v.integer())

/** The user in `data.user` of register and login. */
export const User = v.object({ id, name: v.string(), email: v.string() })

/** `GET /api/auth/me`: the user with their role (`user`, `admin`, `moderator`, or the app's own). */
export const CurrentUser = v.object({ ...User.entries, role: v.string() })

/** Refresh: a new access token and refresh token (the one sent is revoked). */
export const TokenPair = v.object({
  /** The access token (JWT), for `Authorization: Bearer <token>`. */
  token: v.string(),
  /** The refresh token (JWT), for POST /api/auth/refresh; it works once. */
  refresh_token: v.string(),
  token_type: v.literal('Bearer'),
  /** The access token's lifetime in seconds (JWT_TTL). */
  expires_in: id,
})

/** Register and login: the token pair and the user. */
export const TokenPairWithUser = v.object({ ...TokenPair.entries, user: User })
