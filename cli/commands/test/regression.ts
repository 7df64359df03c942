import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { migrate } from '../../../framework/index.ts'
import { REDACTED, type TraceRecord } from '../../../framework/trace/index.ts'
import { openDatabase } from '../../../framework/node/index.ts'
import { defineCommand } from '../../command/define.ts'
import type { RegressionJson, RegressionResultJson } from '../../contract/traces.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import type { CommandIO } from '../../output/io.ts'
import { colors, printLine } from '../../output/print.ts'
import { loadConfig } from '../../project/load-app.ts'
import { runSeeders } from '../../database/seed.ts'
import { loadMigrations } from '../../project/migrations.ts'
import { projectFor, type Project } from '../../project/project.ts'
import { compareResponses } from '../../trace/compare.ts'
import { parseFilters, traceFilterArgs } from '../../trace/filters.ts'
import { openProjectTraceStore, projectTraceConfig } from '../../trace/open-store.ts'
import { prepareRequest, REPLAY_HEADER, ReplayTarget } from '../../trace/replay.ts'
import { diffText } from '../../trace/run-replay.ts'

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])
const { limit: _limit, ...filters } = traceFilterArgs

/** Exit code 1 when any response changed or could not be replayed. */
export default defineCommand({
  meta: {
    name: 'test:regression',
    group: 'Testing',
    description: 'Replay recorded traces and report changed responses; exits 1 on any change',
    json: ['RegressionJson'],
  },
  args: {
    ...cwdArg,
    ...jsonArg,
    limit: { type: 'number', description: 'Replay at most N distinct requests', valueHint: 'n', integer: true, min: 1, default: 100 },
    all: { type: 'boolean', description: 'Also replay POST, PUT, PATCH, DELETE, against a fresh migrated and seeded test database' },
    ...filters,
  },
  async run({ args, io, json: print }) {
    const project = projectFor(io, args.cwd)
    const config = loadConfig(project)
    const limit = args.limit
    const { filter } = parseFilters(args, projectTraceConfig(project, config).slowMs)
    delete filter.limit
    const store = await openProjectTraceStore(project, config)
    let traces: TraceRecord[]
    try {
      traces = distinct(await store.records({ ...filter, limit: limit * 20 }), limit)
    } finally {
      store.close()
    }
    const json = await replayAll(project, io, traces, args.all === true, config.env !== 'production')
    io.exitCode = json.changed > 0 || json.errors > 0 ? 1 : 0
    if (args.json) return print(json)
    const color = colors(io)
    for (const result of json.results) {
      const label = `${result.method} ${result.path}  ${color.dim(result.trace_id)}`
      if (result.status === 'same') printLine(io, `${color.green('same   ')} ${label}`)
      else if (result.status === 'skipped') printLine(io, `${color.dim('skipped')} ${label}  ${color.dim(result.reason ?? '')}`)
      else if (result.status === 'error') printLine(io, `${color.red('error  ')} ${label}  ${result.reason}`)
      else printLine(io, `${color.red('changed')} ${label}\n${diffText(result.diff!, color).split('\n').slice(1).map((line) => `    ${line}`).join('\n')}`)
    }
    printLine(io)
    printLine(io, `${json.total} replayed: ${json.same} same, ${json.changed} changed, ${json.errors} errors, ${json.skipped} skipped`)
  },
})

/** Newest first, one per distinct request (method, path, query, body); replays of replays left out. */
function distinct(records: TraceRecord[], limit: number): TraceRecord[] {
  const seen = new Set<string>()
  const out: TraceRecord[] = []
  for (const record of records) {
    if (record.headers[REPLAY_HEADER] !== undefined) continue
    const key = `${record.method} ${record.path}?${record.query} ${JSON.stringify(record.body.content)}`
    if (seen.has(key)) continue
    seen.add(key)
    out.push(record)
    if (out.length === limit) break
  }
  return out
}

async function replayAll(project: Project, io: CommandIO, traces: TraceRecord[], all: boolean, canSign: boolean): Promise<RegressionJson> {
  const results = new Map<string, RegressionResultJson>()
  const safe = traces.filter((t) => SAFE_METHODS.has(t.method))
  const unsafe = traces.filter((t) => !SAFE_METHODS.has(t.method))
  const main = new ReplayTarget(project, { load: { trace: false } })
  try {
    for (const trace of safe) results.set(trace.trace_id, await replayOne(main, trace, canSign))
  } finally {
    await main.close()
  }
  if (!all) {
    for (const trace of unsafe) {
      results.set(trace.trace_id, { ...base(trace), status: 'skipped', reason: `${trace.method} changes data: --all replays it against a fresh test database` })
    }
  } else if (unsafe.length > 0) {
    const dir = mkdtempSync(join(tmpdir(), 'svc-regression-'))
    const url = `file:${join(dir, 'regression.sqlite')}`
    try {
      const db = await openDatabase({ url, storageDir: dir, projectDir: dir })
      try {
        await migrate(db, await loadMigrations(project))
        // What seeders print (credentials they created) goes to stderr: stdout keeps the report.
        await runSeeders(project, db, io)
      } finally {
        db.close()
      }
      const fresh = new ReplayTarget(project, { load: { trace: false, overrides: { DATABASE_URL: url } } })
      try {
        // Oldest first: a later request may depend on what an earlier one created.
        for (const trace of [...unsafe].reverse()) results.set(trace.trace_id, await replayOne(fresh, trace, canSign))
      } finally {
        await fresh.close()
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
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

function base(trace: TraceRecord): Pick<RegressionResultJson, 'trace_id' | 'method' | 'path' | 'diff' | 'reason'> {
  return { trace_id: trace.trace_id, method: trace.method, path: trace.query === '' ? trace.path : `${trace.path}?${trace.query}`, diff: null, reason: null }
}

async function replayOne(target: ReplayTarget, trace: TraceRecord, canSign: boolean): Promise<RegressionResultJson> {
  if (trace.path.startsWith('/health/')) {
    return { ...base(trace), status: 'skipped', reason: 'health probe: its answer describes the moment it ran' }
  }
  try {
    const { request } = prepareRequest(trace)
    if (trace.headers.authorization === REDACTED) {
      // The recorded bearer token was redacted: a fresh one for the same user stands in (never in production).
      let signed = false
      if (canSign && trace.user_id !== null) {
        try {
          request.headers.authorization = `Bearer ${await target.tokenFor({ id: trace.user_id })}`
          signed = true
        } catch {
          // the user does not exist in this database
        }
      }
      if (!signed) {
        const why = trace.user_id === null ? 'no authenticated user was recorded' : canSign ? `user ${trace.user_id} is not in this database` : 'tokens are not signed in production'
        return { ...base(trace), status: 'skipped', reason: `its Authorization header was redacted and cannot be replaced: ${why}` }
      }
    }
    const response = await target.send(request, trace.ip ?? '127.0.0.1')
    const diff = compareResponses(
      { status: trace.response.status, headers: trace.response.headers, body: trace.response.body.content, truncated: trace.response.body.truncated },
      response,
    )
    return { ...base(trace), status: diff.changed ? 'changed' : 'same', diff: diff.changed ? diff : null }
  } catch (error) {
    return { ...base(trace), status: 'error', reason: (error as Error).message }
  }
}
