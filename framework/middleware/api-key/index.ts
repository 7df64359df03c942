/**
 * Machine-to-machine keys in the `x-api-key` header.
 *
 * - `apikey` / `apiKey({ key })`: the header must equal `API_KEY`, compared in
 *   constant time (both sides hashed first, so not even the length leaks).
 * - `apikey:<scope>[,<scope>...]` / `scopedApiKey({ scopes })`: the header must
 *   be a key made by `svc make:apikey`, not expired nor revoked, holding every
 *   listed scope (`*` holds all).
 *
 * A missing or wrong key answers 401 `Unauthorized`; a valid key without the
 * scope answers 403 `Forbidden`.
 *
 * @example r.post('/webhooks/billing', billingWebhook).middleware('apikey')
 * @example r.get('/exports', listExports).middleware('apikey:exports:read')
 */
import type { Clock } from '../../auth/clock.ts'
import { constantTimeEqual } from '../../auth/passwords.ts'
import type { Context } from '../../context/context.ts'
import { HttpError } from '../../http/http-error.ts'
import type { Middleware } from '../../router/types.ts'
import { findApiKey, type ApiKeyRecord } from './store.ts'

declare module '../../context/context.ts' {
  interface ContextState {
    /** Set by `apikey:<scopes>` (`scopedApiKey`): the stored key of the request. */
    apiKey?: ApiKeyRecord
  }
}

export { createApiKey, findApiKey, parseScopes, type ApiKeyRecord, type CreatedApiKey } from './store.ts'

export const API_KEY_HEADER = 'x-api-key'
const MAX_KEY_LENGTH = 512

function unauthorized(): HttpError {
  return new HttpError(401, 'Unauthorized')
}

/** The header must equal `key` (the app's `API_KEY`). */
export function apiKey(options: { key: string }): Middleware {
  if (options.key === '') throw new Error('apiKey: the expected key is empty (set API_KEY)')
  const expected = digest(options.key)
  return async function apiKeyMiddleware(c, next) {
    const given = c.headers.get(API_KEY_HEADER)
    if (given === null || given.length > MAX_KEY_LENGTH) throw unauthorized()
    if (!constantTimeEqual(await digest(given), await expected)) throw unauthorized()
    return next()
  }
}

/** The header must be a stored key holding every one of `scopes`; the key is then in `c.state.apiKey`. */
export function scopedApiKey(options: { scopes: string[]; clock?: Clock }): Middleware {
  const { scopes } = options
  const clock = options.clock ?? { now: () => Date.now() }
  if (scopes.length === 0) throw new Error('scopedApiKey: name at least one scope')
  return async function scopedApiKeyMiddleware(c, next) {
    const given = c.headers.get(API_KEY_HEADER)
    if (given === null || given === '' || given.length > MAX_KEY_LENGTH) throw unauthorized()
    const record = await findApiKey(c.db, given)
    const now = new Date(clock.now()).toISOString()
    if (record === undefined || record.revoked_at !== null || (record.expires_at !== null && record.expires_at <= now)) {
      throw unauthorized()
    }
    const missing = scopes.filter((scope) => !record.scopes.includes(scope) && !record.scopes.includes('*'))
    if (missing.length > 0) throw new HttpError(403, 'Forbidden', { details: { missing_scopes: missing } })
    c.state.apiKey = record
    return next()
  }
}

/** The stored key of a request that passed `apikey:<scope>`. */
export function currentApiKey(c: Context): ApiKeyRecord | undefined {
  return c.state.apiKey
}

async function digest(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)))
}
