/**
 * Maintenance mode (`svc down` / `svc up`): while the state source says the
 * app is down, every request answers 503 with the envelope and `Retry-After`,
 * except
 *
 * - `/health/live` (the process is alive; orchestrators must not kill it),
 * - clients whose address is allowed (`c.ip`: through the same trusted-proxy
 *   rule as the throttle, so a forged `X-Forwarded-For` does not get in),
 * - requests carrying the bypass secret, in the `X-Maintenance-Bypass`
 *   header or the `svc_maintenance` cookie. A browser gets the cookie by
 *   opening `/<secret>` once (Laravel's way), which redirects to `/`.
 *
 * `/health/ready` answers 503 to everyone, allowed or not, so that load
 * balancers take the instance out of rotation.
 *
 * Web-standard: the state comes from a source the runtime adapter provides
 * (on Node, a state file polled at most once a second: svc/node
 * `maintenanceFile`). The source is called on every request and must be cheap.
 *
 * @example createApp({ ..., maintenance: maintenanceFile('storage/maintenance.json') })
 */
import { constantTimeEqual } from '../../auth/passwords.ts'
import { sha256Hex } from '../../auth/digest.ts'
import type { Context } from '../../context/context.ts'
import { HttpError } from '../../http/http-error.ts'
import type { Middleware } from '../../router/types.ts'

export interface MaintenanceState {
  /** When the app went down (ISO 8601). */
  since: string
  /** The `error` of the 503 envelope. */
  message: string
  /** Seconds, sent as `Retry-After`. */
  retry: number
  /** Client addresses (IPv4, IPv6) and IPv4 ranges (`10.0.0.0/8`) that are served as usual. */
  allow: string[]
  /** SHA-256 (hex) of the bypass secret; absent: no bypass by secret. */
  secret_sha256?: string
}

/** The current state: undefined when the app is up. Called per request. */
export type MaintenanceSource = () => MaintenanceState | undefined | Promise<MaintenanceState | undefined>

export const MAINTENANCE_BYPASS_HEADER = 'X-Maintenance-Bypass'
export const MAINTENANCE_COOKIE = 'svc_maintenance'
export const DEFAULT_MAINTENANCE_MESSAGE = 'The service is down for maintenance; try again shortly.'
export const DEFAULT_RETRY_SECONDS = 60

/** The liveness probe: answered in maintenance mode too (orchestrators must not kill the process). */
export const LIVE_PATH = '/health/live'
const READY_PATH = '/health/ready'

export function maintenanceMode(source: MaintenanceSource): Middleware {
  return async function maintenance(c, next) {
    if (c.path === LIVE_PATH) return next()
    const state = await source()
    if (state === undefined) return next()
    if (c.path !== READY_PATH) {
      if (isAllowed(c.ip, state.allow)) return next()
      if (state.secret_sha256 !== undefined) {
        if (await matchesSecret(presentedSecret(c), state.secret_sha256)) return next()
        const opened = await openedWithSecret(c, state.secret_sha256)
        if (opened !== undefined) return opened
      }
    }
    const retry = String(Math.max(0, Math.round(state.retry)))
    throw new HttpError(503, state.message || DEFAULT_MAINTENANCE_MESSAGE, {
      headers: { 'Retry-After': retry },
      details: { maintenance: { since: state.since, retry_after: Number(retry) } },
    })
  }
}

function presentedSecret(c: Context): string | undefined {
  const header = c.headers.get(MAINTENANCE_BYPASS_HEADER)
  if (header !== null && header !== '') return header
  return cookieValue(c.headers.get('cookie'), MAINTENANCE_COOKIE)
}

/** `GET /<secret>`: sets the bypass cookie and sends the browser to `/`. */
async function openedWithSecret(c: Context, expected: string): Promise<Response | undefined> {
  if (c.method !== 'GET') return undefined
  const segment = c.path.slice(1)
  if (segment === '' || segment.includes('/')) return undefined
  let secret: string
  try {
    secret = decodeURIComponent(segment)
  } catch {
    return undefined
  }
  if (!(await matchesSecret(secret, expected))) return undefined
  const secure = c.url.protocol === 'https:' ? '; Secure' : ''
  return new Response(null, {
    status: 302,
    headers: {
      Location: '/',
      'Set-Cookie': `${MAINTENANCE_COOKIE}=${encodeURIComponent(secret)}; Path=/; HttpOnly; SameSite=Lax; Max-Age=43200${secure}`,
    },
  })
}

async function matchesSecret(presented: string | undefined, expected: string): Promise<boolean> {
  if (presented === undefined) return false
  const encoder = new TextEncoder()
  return constantTimeEqual(encoder.encode(await sha256Hex(presented)), encoder.encode(expected.toLowerCase()))
}

function cookieValue(header: string | null, name: string): string | undefined {
  if (header === null) return undefined
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq === -1 || part.slice(0, eq).trim() !== name) continue
    try {
      return decodeURIComponent(part.slice(eq + 1).trim())
    } catch {
      return undefined
    }
  }
  return undefined
}

/** Whether `ip` is one of `allow`: an exact address, or inside an IPv4 range (`a.b.c.d/n`). */
export function isAllowed(ip: string | undefined, allow: readonly string[]): boolean {
  if (ip === undefined || allow.length === 0) return false
  const address = plainAddress(ip)
  for (const entry of allow) {
    const slash = entry.indexOf('/')
    if (slash === -1) {
      if (plainAddress(entry) === address) return true
      continue
    }
    const base = ipv4Number(entry.slice(0, slash))
    const bits = Number(entry.slice(slash + 1))
    const candidate = ipv4Number(address)
    if (base === undefined || candidate === undefined || !Number.isInteger(bits) || bits < 0 || bits > 32) continue
    const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0
    if (((base & mask) >>> 0) === ((candidate & mask) >>> 0)) return true
  }
  return false
}

/** A valid allow-list entry (what `svc down --allow` accepts). */
export function isAllowEntry(entry: string): boolean {
  const slash = entry.indexOf('/')
  if (slash !== -1) {
    const bits = entry.slice(slash + 1)
    return ipv4Number(entry.slice(0, slash)) !== undefined && /^\d{1,2}$/.test(bits) && Number(bits) <= 32
  }
  return ipv4Number(entry) !== undefined || isIpv6(entry)
}

function plainAddress(ip: string): string {
  const lower = ip.trim().toLowerCase()
  return lower.startsWith('::ffff:') && ipv4Number(lower.slice(7)) !== undefined ? lower.slice(7) : lower
}

function ipv4Number(text: string): number | undefined {
  const parts = text.split('.')
  if (parts.length !== 4 || !parts.every((part) => /^\d{1,3}$/.test(part) && Number(part) <= 255)) return undefined
  return parts.reduce((value, part) => value * 256 + Number(part), 0)
}

function isIpv6(text: string): boolean {
  if (!text.includes(':') || !/^[0-9a-fA-F:.]+$/.test(text)) return false
  const doubles = text.split('::').length - 1
  if (doubles > 1) return false
  const groups = text.split(':').filter((group) => group !== '')
  const last = groups.at(-1) ?? ''
  const embedded = last.includes('.') ? (ipv4Number(last) === undefined ? -1 : 2) : 0
  if (embedded === -1) return false
  const hexGroups = embedded === 2 ? groups.slice(0, -1) : groups
  if (!hexGroups.every((group) => /^[0-9a-fA-F]{1,4}$/.test(group))) return false
  const count = hexGroups.length + embedded
  return doubles === 1 ? count < 8 : count === 8
}
