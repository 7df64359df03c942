/**
 * `test:regression`: replays recorded traces against the current code and
 * compares each answer with the recorded one (docs/traces.md).
 *
 * - One trace per distinct request: method, path, query, body and status
 *   class (a route that answered 200 and 404 is two cases), newest first;
 *   replays of replays left out.
 * - Safe methods replay against the app's database. With `--all`, the others
 *   replay oldest first against a fresh database (migrated and seeded in a
 *   temporary folder).
 * - What cannot be sent as it was is skipped with the reason: bytes Node's
 *   HTTP parser refused (their trace holds no bytes of what was sent; `- /` when no request line could be read), a
 *   body the trace did not keep whole.
 * - A request whose secrets were redacted in the trace (a body field, a query
 *   parameter, a cookie or key header) is not replayed: it is skipped with the
 *   reason, never sent with `[REDACTED]` in place of the value. A redacted
 *   bearer token is replaced by a fresh one for the recorded user; in the
 *   fresh database that user is the one the replay created (a replayed
 *   registration answered with its id) or a stand-in made from the app's
 *   own user row, never whoever happens to have the same id there.
 * - Replays never write into the app's storage/logs: mail goes to a
 *   temporary folder.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { migrate, type Database } from '../../framework/index.ts'
import { REDACTED, type TraceRecord } from '../../framework/trace/index.ts'
import { openDatabase } from '../../framework/node/index.ts'
import type { RegressionJson, RegressionResultJson } from '../contract/traces.ts'
import { CliError } from '../output/cli-error.ts'
import { importWithJiti, type ImportFile } from '../project/import-file.ts'
import { runSeeders } from '../database/seed.ts'
import type { CommandIO } from '../output/io.ts'
import { loadMigrations } from '../project/migrations.ts'
import type { Project } from '../project/project.ts'
import { compareResponses } from './compare.ts'
import { prepareRequest, refusedBeforeTheApp, ReplayTarget, unreplayable } from './replay.ts'
import { replayOf, replaySigner, type ReplayKey } from './replay-marker.ts'

/** Replayed against the app's own database: they change nothing. */
export const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/**
 * Newest first, one per distinct request (method, path, query, body, status class); svc's own replays left out
 * (`replayKey`: readReplayKey; a forged or unsigned replay marker is a request like any other).
 */
export function distinctTraces(records: TraceRecord[], limit: number, replayKey: ReplayKey): TraceRecord[] {
  const seen = new Set<string>()
  const out: TraceRecord[] = []
  for (const record of records) {
    if (replayOf(record, replayKey) !== null) continue
    const key = `${record.method} ${record.path}?${record.query} ${JSON.stringify(record.body.content)} ${Math.floor(record.status_code / 100)}xx`
    if (seen.has(key)) continue
    seen.add(key)
    out.push(record)
    if (out.length === limit) break
  }
  return out
}

export interface RegressionOptions {
  /** Replay POST, PUT, PATCH, DELETE too, against a fresh database. */
  all: boolean
  /** Tokens may be signed for recorded users (not in production). */
  canSign: boolean
  /** How the app's files are loaded (tests pass the runner's own import). */
  importFile?: ImportFile
  /** Where what the seeders print goes (stderr: stdout keeps the report). */
  io: CommandIO
  /** Called as each trace is replayed (progress). */
  onReplay?(trace: TraceRecord): void
}

export async function replayTraces(project: Project, traces: TraceRecord[], options: RegressionOptions): Promise<RegressionJson> {
  const importFile = options.importFile ?? importWithJiti
  const results = new Map<string, RegressionResultJson>()
  // What the server refused is never sent (replayOne says why), whatever its method: `- /` (no request line read)
  // or a POST whose body stalled must not be skipped as a method that "changes data".
  const onMain = (t: TraceRecord) => SAFE_METHODS.has(t.method) || refusedBeforeTheApp(t)
  const safe = traces.filter(onMain)
  const unsafe = traces.filter((t) => !onMain(t))
  const logsDir = mkdtempSync(join(tmpdir(), 'svc-regression-logs-'))
  try {
    const main = new ReplayTarget(project, { load: { trace: false, logsDir, importFile } })
    try {
      // The app's own database: a recorded user is that same user.
      const users: UserMap = { resolve: async (id) => id }
      for (const trace of safe) {
        options.onReplay?.(trace)
        results.set(trace.trace_id, await replayOne(main, trace, options.canSign, users))
      }
      if (!options.all) {
        for (const trace of unsafe) {
          results.set(trace.trace_id, skipped(trace, `${trace.method} changes data: --all replays it against a fresh test database`))
        }
      } else if (unsafe.length > 0) {
        await replayOnFreshDatabase(project, main, unsafe, options, { logsDir, importFile }, results)
      }
    } finally {
      await main.close()
    }
  } finally {
    rmSync(logsDir, { recursive: true, force: true })
  }
  const ordered = traces.map((trace) => results.get(trace.trace_id)!)
  const count = (status: RegressionResultJson['status']) => ordered.filter((r) => r.status === status).length
  return {
    total: ordered.length - count('skipped'),
    same: count('same'),
    changed: count('changed'),
    errors: count('error'),
    skipped: count('skipped'),
    results: ordered,
  }
}

async function replayOnFreshDatabase(
  project: Project,
  main: ReplayTarget,
  unsafe: TraceRecord[],
  { canSign, onReplay, io }: RegressionOptions,
  load: { logsDir: string; importFile: ImportFile },
  results: Map<string, RegressionResultJson>,
): Promise<void> {
  const { importFile } = load
  const dir = mkdtempSync(join(tmpdir(), 'svc-regression-'))
  const url = `file:${join(dir, 'regression.sqlite')}`
  try {
    const db = await openDatabase({ url, storageDir: dir, projectDir: dir })
    try {
      await migrate(db, await loadMigrations(project, importFile))
      await runSeeders(project, db, io, undefined, importFile)
    } finally {
      db.close()
    }
    const fresh = new ReplayTarget(project, { load: { trace: false, ...load, overrides: { DATABASE_URL: url } } })
    try {
      const users = freshUsers(main, fresh)
      // Oldest first: a later request may depend on what an earlier one created.
      for (const trace of [...unsafe].reverse()) {
        onReplay?.(trace)
        const result = await replayOne(fresh, trace, canSign, users)
        results.set(trace.trace_id, result)
      }
    } finally {
      await fresh.close()
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Recorded user id => the user of the replay's database who stands for them (undefined: none can). */
interface UserMap {
  resolve(recordedId: number | string): Promise<number | string | undefined>
  /** A replayed response that names a user the replay created (`data.user.id`), for the recorded one. */
  learn?(recorded: unknown, current: unknown): void
}

interface UserRow {
  id: number
  name: string
  email: string
  role: string
  status: number
  email_verified_at: string | null
}

/**
 * The users of a fresh database for recorded ids: the user a replayed
 * request created for that id, else the user with the same email (a
 * seeded one), else a stand-in copied from the app's own row (name, email,
 * role, status, verification; a password no login can match).
 */
function freshUsers(main: ReplayTarget, fresh: ReplayTarget): UserMap {
  const known = new Map<string, number | string>()
  return {
    async resolve(recordedId) {
      const key = String(recordedId)
      if (known.has(key)) return known.get(key)
      const original = await userRow((await main.app()).database, 'id = ?', Number(recordedId))
      if (original === undefined) return undefined
      const db = (await fresh.app()).database!
      let standIn = await userRow(db, 'email = ?', original.email)
      if (standIn === undefined) {
        const inserted = await db.execute(
          'insert into users (name, email, password, role, status, email_verified_at) values (?, ?, ?, ?, ?, ?) returning id',
          [original.name, original.email, `!regression-stand-in-${crypto.randomUUID()}`, original.role, original.status, original.email_verified_at],
        )
        standIn = { ...original, id: Number(inserted.rows[0]!.id) }
      }
      known.set(key, standIn.id)
      return standIn.id
    },
    learn(recorded, current) {
      const before = userIdIn(recorded)
      const after = userIdIn(current)
      if (before !== undefined && after !== undefined) known.set(String(before), after)
    },
  }
}

async function userRow(db: Database | undefined, where: string, value: unknown): Promise<UserRow | undefined> {
  if (db === undefined) return undefined
  try {
    const result = await db.execute(`select id, name, email, role, status, email_verified_at from users where ${where}`, [value as string])
    return result.rows[0] as unknown as UserRow | undefined
  } catch {
    return undefined // no users table
  }
}

/** `data.user.id` of an auth response (register, login). */
function userIdIn(body: unknown): number | string | undefined {
  const user = (body as { data?: { user?: { id?: unknown } } } | null)?.data?.user
  const id = user?.id
  return typeof id === 'number' || typeof id === 'string' ? id : undefined
}

function base(trace: TraceRecord): Pick<RegressionResultJson, 'trace_id' | 'method' | 'path' | 'diff' | 'reason'> {
  return { trace_id: trace.trace_id, method: trace.method, path: trace.query === '' ? trace.path : `${trace.path}?${trace.query}`, diff: null, reason: null }
}

function skipped(trace: TraceRecord, reason: string): RegressionResultJson {
  return { ...base(trace), status: 'skipped', reason }
}

/** Why a trace cannot be sent as it was, if it cannot. */
function notReplayable(trace: TraceRecord, redacted: string[]): string | undefined {
  if (trace.path.startsWith('/health/')) return 'health probe: its answer describes the moment it ran'
  const cannot = unreplayable(trace)
  if (cannot !== undefined) return `${cannot.reason}: it cannot be sent as it was`
  const secrets = redacted.filter((place) => place !== 'header authorization')
  if (secrets.length > 0) return `it carried secrets the trace does not keep (${secrets.join(', ')}): replayed with ${REDACTED} in their place, its answer would say nothing`
  return undefined
}

async function replayOne(target: ReplayTarget, trace: TraceRecord, canSign: boolean, users: UserMap): Promise<RegressionResultJson> {
  const unsendable = notReplayable(trace, [])
  if (unsendable !== undefined) return skipped(trace, unsendable)
  try {
    const { request, redacted } = prepareRequest(trace, { signer: replaySigner(target.project) })
    const secrets = notReplayable(trace, redacted)
    if (secrets !== undefined) return skipped(trace, secrets)
    if (redacted.includes('header authorization')) {
      // The recorded bearer token was redacted: a fresh one for the user who stands for the recorded one (never in production).
      if (!canSign) return skipped(trace, 'its Authorization header was redacted and cannot be replaced: tokens are not signed in production')
      if (trace.user_id === null) return skipped(trace, 'its Authorization header was redacted and cannot be replaced: no authenticated user was recorded')
      const userId = await users.resolve(trace.user_id)
      const token = userId === undefined ? undefined : await target.tokenFor({ id: userId }).catch((error: unknown) => {
        if (error instanceof CliError && error.code === 'E_AS_UNKNOWN_USER') return undefined
        throw error
      })
      if (token === undefined) return skipped(trace, `its Authorization header was redacted and cannot be replaced: user ${trace.user_id} is not in the app's database`)
      request.headers.authorization = `Bearer ${token}`
    }
    const response = await target.send(request, trace.ip ?? '127.0.0.1')
    users.learn?.(trace.response.body.content, response.body)
    const diff = compareResponses(
      { status: trace.response.status, headers: trace.response.headers, body: trace.response.body.content, truncated: trace.response.body.truncated },
      response,
    )
    return { ...base(trace), status: diff.changed ? 'changed' : 'same', diff: diff.changed ? diff : null }
  } catch (error) {
    return { ...base(trace), status: 'error', reason: (error as Error).message }
  }
}
