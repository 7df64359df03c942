/**
 * The configuration cache, `storage/cache/config.json` (`svc config:cache`):
 * the settings resolved once, so that a start reads one signed file instead of
 * `.env` and the process environment.
 *
 * - Signed: HMAC-SHA256 over the canonical JSON (keys sorted, no spaces) of
 *   everything but the signature, with a key derived by HKDF-SHA256 from
 *   APP_KEY, or JWT_SECRET when there is no APP_KEY, read from the real
 *   environment (`.env` and the process environment), never from the cache.
 * - A cache that is unsigned, altered, or signed with another key is refused
 *   and ignored (fail closed): the start goes on from `.env` and the
 *   environment, and says so with the fix (`svc config:clear`).
 * - It holds the variables of `.env` and the ones svc reads (not the whole
 *   process environment: no PATH, no HOME), and their resolved settings, for
 *   people to read. Written with mode 600: it holds secrets, as `.env` does.
 * - While it is valid it wins over `.env` and the environment (a snapshot, as
 *   in Laravel); a `.env` changed after it was written is reported.
 */
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { resolveConfig, type AppConfig, type EnvRecord } from '../../framework/index.ts'
import { loadEnv, readEnvFile } from '../../framework/node/index.ts'
import { CliError } from '../output/cli-error.ts'
import type { Project } from './project.ts'
import { settingNames } from './settings.ts'

export const CONFIG_CACHE_VERSION = 1
const HKDF_SALT = 'svc config cache'
const HKDF_INFO = 'svc/config-cache/hmac-sha256/v1'

export type KeySource = 'APP_KEY' | 'JWT_SECRET'

export interface ConfigCacheFile {
  version: number
  created_at: string
  /** Which variable the signing key comes from. */
  key_source: KeySource
  /** A fingerprint of the signing key (not the key): tells "another key" from "altered". */
  key_id: string
  /** `.env` when the cache was written (size and modification time), to say when it changed since. */
  env_file: { path: string; size: number; mtime_ms: number } | null
  /** The variables the settings are resolved from. */
  vars: Record<string, string>
  /** The resolved settings, for people (the app resolves `vars` again, the same way). */
  config: Omit<AppConfig, 'vars'>
  signature: string
}

export function configCachePath(project: Project): string {
  return join(project.storageDir, 'cache', 'config.json')
}

/** The real environment: `.env` under the process environment (never the cache). */
export function realEnvironment(project: Project): Record<string, string | undefined> {
  return loadEnv(project.envFile, project.env)
}

/** The signing key and where it came from; undefined without APP_KEY or JWT_SECRET. */
export function cacheKey(env: EnvRecord): { key: Buffer; source: KeySource; id: string } | undefined {
  const source: KeySource | undefined = env.APP_KEY?.trim() ? 'APP_KEY' : env.JWT_SECRET?.trim() ? 'JWT_SECRET' : undefined
  if (source === undefined) return undefined
  const secret = env[source]!.trim()
  const key = Buffer.from(hkdfSync('sha256', secret, HKDF_SALT, HKDF_INFO, 32))
  const id = createHmac('sha256', key).update('key-id').digest('hex').slice(0, 16)
  return { key, source, id }
}

/** Writes the cache from the real environment; returns the file and the key's source. */
export function writeConfigCache(project: Project): { file: string; keySource: KeySource } {
  const env = realEnvironment(project)
  const signing = cacheKey(env)
  if (signing === undefined) {
    throw new CliError('E_NO_KEY', 'config:cache signs the cache with a key derived from APP_KEY (or JWT_SECRET), and neither is set', {
      hint: 'set APP_KEY (at least 32 characters: svc key:generate --show prints one) in .env or the environment',
    })
  }
  if (env[signing.source]!.trim().length < 32) {
    throw new CliError('E_WEAK_KEY', `${signing.source} is shorter than 32 characters: too weak to sign the config cache`, { hint: 'svc key:generate --show prints a strong one' })
  }
  const config = resolveConfig(env) // a bad value stops here, as it would stop the app
  const file = configCachePath(project)
  const vars = keptVariables(project, env)
  const { vars: _all, ...resolved } = config
  const body: Omit<ConfigCacheFile, 'signature'> = {
    version: CONFIG_CACHE_VERSION,
    created_at: new Date().toISOString(),
    key_source: signing.source,
    key_id: signing.id,
    env_file: envFileStamp(project),
    vars,
    config: resolved,
  }
  const cache: ConfigCacheFile = { ...body, signature: sign(signing.key, body) }
  mkdirSync(dirname(file), { recursive: true })
  const temporary = `${file}.${process.pid}.tmp`
  writeFileSync(temporary, `${JSON.stringify(cache, null, 2)}\n`, { mode: 0o600 })
  renameSync(temporary, file)
  return { file, keySource: signing.source }
}

export function clearConfigCache(project: Project): boolean {
  const file = configCachePath(project)
  const existed = existsSync(file)
  rmSync(file, { force: true })
  return existed
}

/** Why a cache is not used: the message says which case, the hint what to do. */
export class ConfigCacheRefused extends CliError {
  constructor(file: string, reason: string) {
    super('E_CONFIG_CACHE', `${file} ${reason}: refused, and ignored (settings come from .env and the environment)`, {
      hint: 'svc config:clear removes it; svc config:cache writes a new one signed with this environment\'s key',
    })
  }
}

export type CacheReading =
  | { state: 'absent' }
  | { state: 'valid'; cache: ConfigCacheFile; stale: boolean }
  | { state: 'refused'; error: ConfigCacheRefused }

/** Reads and verifies the cache against the real environment's key. */
export function readConfigCache(project: Project): CacheReading {
  const file = configCachePath(project)
  if (!existsSync(file)) return { state: 'absent' }
  const refuse = (reason: string): CacheReading => ({ state: 'refused', error: new ConfigCacheRefused(file, reason) })
  let parsed: Partial<ConfigCacheFile>
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<ConfigCacheFile>
  } catch {
    return refuse('is not valid JSON')
  }
  if (typeof parsed !== 'object' || parsed === null) return refuse('is not a config cache')
  if (typeof parsed.signature !== 'string' || parsed.signature === '') return refuse('is not signed')
  const signing = cacheKey(realEnvironment(project))
  if (signing === undefined) return refuse('cannot be verified: neither APP_KEY nor JWT_SECRET is set in .env or the environment')
  if (parsed.key_id !== signing.id) return refuse(`was signed with another key (not this environment's ${signing.source})`)
  const { signature, ...body } = parsed
  const expected = Buffer.from(sign(signing.key, body), 'hex')
  const given = Buffer.from(signature, 'hex')
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return refuse('was altered after it was signed')
  if (parsed.version !== CONFIG_CACHE_VERSION || typeof parsed.vars !== 'object' || parsed.vars === null) return refuse('has a format this svc does not read')
  const cache = parsed as ConfigCacheFile
  return { state: 'valid', cache, stale: isStale(project, cache) }
}

/** The cache was written before `.env` last changed. */
function isStale(project: Project, cache: ConfigCacheFile): boolean {
  const now = envFileStamp(project)
  if (now === null || cache.env_file === null) return now !== cache.env_file
  return now.size !== cache.env_file.size || now.mtime_ms !== cache.env_file.mtime_ms
}

function envFileStamp(project: Project): ConfigCacheFile['env_file'] {
  if (!existsSync(project.envFile)) return null
  const stat = statSync(project.envFile)
  return { path: project.envFile, size: stat.size, mtime_ms: stat.mtimeMs }
}

/** `.env`'s variables and those svc reads, from the real environment; never the rest of the process environment. */
function keptVariables(project: Project, env: EnvRecord): Record<string, string> {
  const names = new Set([...Object.keys(readEnvFile(project.envFile)), ...settingNames(env)])
  const kept: Record<string, string> = {}
  for (const name of [...names].sort()) {
    const value = env[name]
    if (value !== undefined) kept[name] = value
  }
  return kept
}

function sign(key: Buffer, body: unknown): string {
  return createHmac('sha256', key).update(canonicalJson(body)).digest('hex')
}

/** JSON with object keys sorted at every depth and no whitespace: one text per value. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    typeof item === 'object' && item !== null && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  )
}
