/**
 * `svc doctor`: what stands between this project and a healthy (production)
 * start, each check `ok`, `warn` or `fail` with the fix. With `--prod` (or
 * APP_ENV=production) the checks are production's: debug must be off, the
 * schema current, the caches made, the URL https.
 *
 * Each check is a small function; one that throws is itself a failure (its
 * message is the finding), so one broken part never hides the others.
 */
import { accessSync, constants, existsSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { migrationStatus, type AppConfig } from '../../framework/index.ts'
import { readJwtKeyFiles, readMaintenanceFile } from '../../framework/node/index.ts'
import type { DoctorCheckJson } from '../contract/operations.ts'
import { missingDatabaseFile } from '../database/open.ts'
import { noTracesYet, openProjectTraceStore, projectTraceConfig, traceStoreFile } from '../trace/open-store.ts'
import { readConfigCache, realEnvironment } from './config-cache.ts'
import { readEnvCache, splitEnvironment } from './env-cache.ts'
import { checkEnvironment } from './env-check.ts'
import { moduleCacheDir } from './import-file.ts'
import { loadConfig, openProjectDatabase } from './load-app.ts'
import { maintenancePath } from './maintenance.ts'
import { loadMigrations } from './migrations.ts'
import type { Project } from './project.ts'
import { readRouteCache, routeCachePath } from './route-cache.ts'

export type Finding = Omit<DoctorCheckJson, 'name'>

interface DoctorContext {
  project: Project
  production: boolean
  /** The settings the app would start with; undefined when they do not resolve (the env check says why). */
  config: AppConfig | undefined
}

const ok = (message: string): Finding => ({ status: 'ok', message, fix: null })
const warn = (message: string, fix: string): Finding => ({ status: 'warn', message, fix })
const fail = (message: string, fix: string): Finding => ({ status: 'fail', message, fix })
/** A warning in development is a failure in production. */
const serious = (production: boolean) => (production ? fail : warn)

/** The minimum Node version (package.json `engines`). */
export const MIN_NODE = [20, 19] as const

export const CHECKS: ReadonlyArray<[name: string, check: (context: DoctorContext) => Finding | Promise<Finding>]> = [
  ['node', () => nodeVersion(process.versions.node)],
  ['env_file', envFile],
  ['secret', secretStrength],
  ['debug', debugMode],
  ['database', database],
  ['migrations', migrations],
  ['storage', storageWritable],
  ['caches', caches],
  ['traces', traces],
  ['https', https],
  ['maintenance', maintenance],
]

export async function runDoctor(project: Project, prod: boolean): Promise<{ production: boolean; checks: DoctorCheckJson[] }> {
  let config: AppConfig | undefined
  try {
    config = loadConfig(project)
  } catch {
    config = undefined
  }
  // Settings that do not resolve still say which environment they are for.
  const production = prod || (config?.env ?? realEnvironment(project).APP_ENV?.trim()) === 'production'
  const context: DoctorContext = { project, production, config }
  const results: DoctorCheckJson[] = []
  for (const [name, check] of CHECKS) {
    try {
      results.push({ name, ...(await check(context)) })
    } catch (error) {
      results.push({ name, status: 'fail', message: (error as Error).message, fix: (error as { hint?: string }).hint ?? 'see the message' })
    }
  }
  return { production, checks: results }
}

export function nodeVersion(version: string): Finding {
  const [major = 0, minor = 0] = version.split('.').map(Number)
  if (major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1])) return ok(`Node ${version}`)
  return fail(`Node ${version} is older than ${MIN_NODE.join('.')}`, `install Node ${MIN_NODE.join('.')} or newer (an LTS release)`)
}

function envFile({ project, production }: DoctorContext): Finding {
  const problems = checkEnvironment(project)
  const errors = problems.filter((problem) => problem.level === 'error')
  if (errors.length > 0) return fail(`${errors.length} invalid setting${errors.length === 1 ? '' : 's'}: ${errors.map((problem) => `${problem.variable} (${problem.message})`).join('; ')}`, 'svc env:check lists each one with its fix')
  const where = existsSync(project.envFile) ? project.envFile : 'the environment (no .env)'
  if (problems.length > 0) return warn(`${where}: ${problems.length} warning${problems.length === 1 ? '' : 's'} (${problems.map((problem) => problem.variable).join(', ')})`, 'svc env:check says what each one is')
  return ok(`${where}: every setting is valid${production && existsSync(project.envFile) ? ' (in production, prefer the environment or a config cache to a .env file)' : ''}`)
}

/** A secret that is long enough but made of few distinct characters (`aaaa…`, `1234…`) is guessable. */
export function secretQuality(secret: string): 'ok' | 'short' | 'weak' {
  if (secret.length < 32) return 'short'
  if (new Set(secret).size < 16) return 'weak'
  return 'ok'
}

function secretStrength({ project, production, config }: DoctorContext): Finding {
  const env = realEnvironment(project)
  const algorithm = config?.jwtAlgorithm ?? 'HS256'
  const findings: string[] = []
  if (algorithm === 'RS256') {
    const files = readJwtKeyFiles(project.storageDir)
    if (env.JWT_PRIVATE_KEY === undefined && files.privateKey === undefined) return fail('JWT_ALGORITHM=RS256 but there is no private key', 'svc key:generate --rs256')
    const file = join(project.storageDir, 'keys', 'jwt-private.pem')
    if (existsSync(file) && (statSync(file).mode & 0o077) !== 0) return serious(production)(`${file} is readable by other users`, `chmod 600 ${file}`)
    findings.push('RS256 key pair present')
  }
  for (const name of algorithm === 'HS256' ? ['JWT_SECRET', 'APP_KEY'] : ['APP_KEY']) {
    const value = env[name]?.trim()
    if (!value) {
      if (name === 'JWT_SECRET') return fail('JWT_SECRET is not set', 'svc key:generate')
      continue
    }
    const quality = secretQuality(value)
    if (quality === 'short') return fail(`${name} has ${value.length} characters (at least 32)`, name === 'JWT_SECRET' ? 'svc key:generate' : 'svc key:generate --show, then set APP_KEY')
    if (quality === 'weak') return serious(production)(`${name} uses only ${new Set(value).size} different characters: guessable`, name === 'JWT_SECRET' ? 'svc key:generate' : 'svc key:generate --show, then set APP_KEY')
    findings.push(`${name} strong (${value.length} characters)`)
  }
  return ok(findings.join('; '))
}

function debugMode({ production, config }: DoctorContext): Finding {
  if (config === undefined) return warn('the settings do not resolve', 'see env_file')
  if (production && config.debug) return fail('APP_DEBUG is on in production: error bodies show exception messages and stacks', 'APP_DEBUG=false')
  return ok(`APP_DEBUG ${config.debug ? 'on' : 'off'} (${config.env})`)
}

/**
 * The checks only look: a database or trace store that does not exist yet is a finding, never a new empty
 * file (which would also hide a mistyped DATABASE_URL behind "reachable").
 */
async function database({ project, production, config }: DoctorContext): Promise<Finding> {
  if (config === undefined) return warn('the settings do not resolve', 'see env_file')
  const missing = missingDatabaseFile(project, config)
  const blocker = missing === undefined ? undefined : notAFolderAbove(missing)
  if (blocker !== undefined) return fail(`no database at ${missing}, and svc migrate cannot create it: ${blocker} is not a folder`, 'check DATABASE_URL')
  if (missing !== undefined) return serious(production)(`no database yet at ${missing}`, production ? 'svc migrate --force creates it (or check DATABASE_URL)' : 'svc migrate creates it (or check DATABASE_URL)')
  const db = await openProjectDatabase(project, config)
  try {
    await db.execute('select 1')
    return ok(`reachable (${config.databaseUrl ?? 'storage/database.sqlite'})`)
  } finally {
    db.close()
  }
}

/** The nearest existing path above `file` when it is not a folder (so the file cannot be created there). */
function notAFolderAbove(file: string): string | undefined {
  let dir = dirname(file)
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir)
  return existsSync(dir) && !statSync(dir).isDirectory() ? dir : undefined
}

async function migrations({ project, production, config }: DoctorContext): Promise<Finding> {
  if (config === undefined) return warn('the settings do not resolve', 'see env_file')
  if (missingDatabaseFile(project, config) !== undefined) return pendingFinding(production, (await loadMigrations(project)).map((migration) => ({ name: migration.name, batch: null })))
  const db = await openProjectDatabase(project, config)
  try {
    return pendingFinding(production, await migrationStatus(db, await loadMigrations(project)))
  } finally {
    db.close()
  }
}

/** Which migrations are pending (all of them before the database exists). */
function pendingFinding(production: boolean, statuses: ReadonlyArray<{ name: string; batch: number | null }>): Finding {
  const pending = statuses.filter((status) => status.batch === null)
  if (pending.length === 0) return ok(`${statuses.length} migrations, none pending`)
  const names = pending.map((status) => status.name)
  const shown = names.length > 3 ? `${names.slice(0, 3).join(', ')} and ${names.length - 3} more` : names.join(', ')
  return serious(production)(`${pending.length} pending: ${shown}`, production ? 'svc migrate --force' : 'svc migrate')
}

/**
 * Whether storage/ can be written, asked of the file system (access(2)) rather than by writing: a check
 * only reads. A missing folder is reported with what creates it; doctor used to create it.
 */
function storageWritable({ project }: DoctorContext): Finding {
  const dir = project.storageDir
  if (!existsSync(dir)) {
    const parent = dirname(dir)
    if (!writable(parent)) return fail(`${dir} does not exist, and ${parent} is not writable to create it`, `create ${dir}, writable by the user running svc`)
    return warn(`${dir} does not exist yet`, 'svc serve (or svc migrate) creates it')
  }
  if (!statSync(dir).isDirectory()) return fail(`${dir} is not a folder`, `move the file away: svc keeps its database, traces, logs and caches in ${dir}/`)
  if (!writable(dir)) return fail(`${dir} is not writable`, `give the user running svc write access to ${dir}`)
  return ok(`${dir} is writable`)
}

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK | constants.X_OK)
    return true
  } catch {
    return false
  }
}

function caches({ project, production }: DoctorContext): Finding {
  const problems: Array<{ level: 'warn' | 'fail'; text: string; fix: string }> = []
  const notes: string[] = []
  const config = readConfigCache(project)
  if (config.state === 'refused') problems.push({ level: 'fail', text: config.error.message, fix: config.error.hint ?? 'svc config:clear' })
  else if (config.state === 'valid' && config.stale) problems.push({ level: 'warn', text: 'the config cache is older than .env', fix: 'svc config:cache (or svc optimize)' })
  else if (config.state === 'valid') notes.push('config cached')
  else if (production) problems.push({ level: 'warn', text: 'no config cache', fix: 'svc optimize' })

  // An out-of-date route cache is never served: route:list, OpenAPI and the editor rebuild it when a file under
  // routes/ or app/ changed, and the server compiles its routes at startup. Warning about it fired after every edit.
  if (existsSync(routeCachePath(project))) notes.push(readRouteCache(project) === undefined ? 'route cache out of date (rebuilt when next read)' : 'route cache fresh')
  if (existsSync(moduleCacheDir(project.storageDir))) notes.push('modules transpiled')
  else if (production) problems.push({ level: 'warn', text: 'modules are transpiled at every start', fix: 'svc optimize' })

  const envCache = readEnvCache(project)
  if (envCache !== undefined) {
    const { kept } = splitEnvironment(project)
    const changed = [...new Set([...Object.keys(kept), ...Object.keys(envCache.vars)])].filter((name) => kept[name] !== envCache.vars[name]).sort()
    if (changed.length > 0) problems.push({ level: 'warn', text: `the environment changed since env:cache (${changed.join(', ')})`, fix: 'svc env:cache records the current one' })
    else notes.push('environment as cached')
  }
  const worst = problems.some((problem) => problem.level === 'fail') ? fail : problems.length > 0 ? warn : undefined
  if (worst === undefined) return ok(notes.length > 0 ? notes.join(', ') : 'none made (development: nothing to keep fresh)')
  return worst(problems.map((problem) => problem.text).join('; '), [...new Set(problems.map((problem) => problem.fix))].join('; '))
}

async function traces({ project, production, config }: DoctorContext): Promise<Finding> {
  if (config === undefined) return warn('the settings do not resolve', 'see env_file')
  const settings = projectTraceConfig(project, config)
  if (settings.modes.has('off')) return ok('tracing is off (TRACE_MODE=off)')
  const stored = await storedTraces(project, config)
  const summary = `${stored.summary}, kept ${settings.retentionDays} days, at most ${settings.maxTraces}`
  if (stored.dropped > 0) return warn(`${summary}; ${stored.dropped} dropped because the buffer was full`, 'raise TRACE_BUFFER_SIZE, or record less (TRACE_MODE=errors,slow)')
  if (production && settings.modes.has('all')) return warn(`${summary}; every request is recorded in production`, 'TRACE_MODE=errors,slow (or sample with TRACE_SAMPLE_RATE)')
  return ok(summary)
}

/** What the trace store holds, read without creating it: before the first recorded request there is no file. */
async function storedTraces(project: Project, config: AppConfig): Promise<{ summary: string; dropped: number }> {
  const file = traceStoreFile(project, config)
  if (file !== null && !existsSync(file)) return { summary: noTracesYet(project, config).replace(/\.$/, ''), dropped: 0 }
  const store = await openProjectTraceStore(project, config, { create: false })
  try {
    const [count, dropped] = await Promise.all([store.count(), store.droppedCount()])
    const size = file !== null ? ` (${(statSync(file).size / 1024 / 1024).toFixed(1)} MB)` : ''
    return { summary: `${count} traces${size}`, dropped }
  } finally {
    store.close()
  }
}

function https({ production, config }: DoctorContext): Finding {
  if (config === undefined) return warn('the settings do not resolve', 'see env_file')
  const appUrl = config.vars.APP_URL?.trim()
  if (appUrl?.startsWith('https://')) return ok(`APP_URL is ${appUrl}`)
  if (!production) return ok('development: plain HTTP is fine on 127.0.0.1 (use HTTPS in production)')
  return warn(
    appUrl ? `APP_URL is ${appUrl}: tokens would cross the network in clear` : 'APP_URL is not set: mailed links use http://HOST:PORT',
    'serve HTTPS (TLS at a reverse proxy or load balancer), set APP_URL=https://..., and TRUSTED_PROXIES to the proxy\'s address',
  )
}

function maintenance({ project, config }: DoctorContext): Finding {
  if (config === undefined) return warn('the settings do not resolve', 'see env_file')
  const state = readMaintenanceFile(maintenancePath(project, config))
  if (state === undefined) return ok('not in maintenance mode')
  return warn(`in maintenance mode since ${state.since}: every request answers 503`, 'svc up')
}
