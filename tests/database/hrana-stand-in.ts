/**
 * A local stand-in for a libSQL server (sqld), which npm does not ship: the
 * Hrana v2 HTTP protocol (`GET /v2`, `POST /v2/pipeline`) over SQLite files,
 * one connection per stream (baton), enough for `@libsql/client/web`:
 * execute, batch with conditions, sequence, stored SQL, autocommit, close.
 * Test-only (drivers.test.ts runs the shared Database suite through it).
 */
import { randomUUID } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import Database from 'libsql'

type HranaValue = { type: 'null' } | { type: 'integer'; value: string } | { type: 'float'; value: number } | { type: 'text'; value: string } | { type: 'blob'; base64: string }
interface Stmt {
  sql?: string
  sql_id?: number
  args?: HranaValue[]
  named_args?: Array<{ name: string; value: HranaValue }>
  want_rows?: boolean
}
type Condition = { type: 'ok' | 'error'; step: number } | { type: 'not'; cond: Condition } | { type: 'and' | 'or'; conds: Condition[] } | { type: 'is_autocommit' }
interface Stream {
  db: InstanceType<typeof Database>
  sqls: Map<number, string>
}

export interface HranaStandIn {
  url: string
  close(): Promise<void>
}

export async function startHranaStandIn(file: string): Promise<HranaStandIn> {
  const streams = new Map<string, Stream>()
  const server: Server = createServer((request, response) => {
    const reply = (status: number, body?: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' })
      response.end(body === undefined ? '' : JSON.stringify(body))
    }
    if (request.method === 'GET') return reply(request.url === '/v2' ? 200 : 404)
    if (request.method !== 'POST' || request.url !== '/v2/pipeline') return reply(404)
    let text = ''
    request.setEncoding('utf8').on('data', (chunk: string) => (text += chunk))
    request.on('end', () => {
      const body = JSON.parse(text) as { baton: string | null; requests: Array<Record<string, unknown>> }
      if (process.env.HRANA_DEBUG) console.log(JSON.stringify(body))
      let baton = body.baton ?? null
      let stream = baton === null ? undefined : streams.get(baton)
      if (stream === undefined) {
        if (baton !== null) return reply(400, { message: 'unknown baton' })
        stream = { db: new Database(file, { timeout: 5000 } as never), sqls: new Map() }
      }
      const results = body.requests.map((req) => {
        try {
          return { type: 'ok', response: handle(stream!, req) }
        } catch (error) {
          const e = error as { message?: string; code?: string }
          return { type: 'error', error: { message: e.message ?? String(error), code: e.code ?? 'UNKNOWN' } }
        }
      })
      const closed = body.requests.some((req) => req.type === 'close')
      if (baton !== null) streams.delete(baton)
      if (closed) {
        stream.db.close()
        baton = null
      } else {
        baton = randomUUID()
        streams.set(baton, stream)
      }
      reply(200, { baton, base_url: null, results })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        for (const stream of streams.values()) stream.db.close()
        server.close(() => resolve())
      }),
  }
}

function handle(stream: Stream, req: Record<string, unknown>): unknown {
  switch (req.type) {
    case 'execute':
      return { type: 'execute', result: execute(stream, req.stmt as Stmt) }
    case 'batch': {
      const steps = (req.batch as { steps: Array<{ condition?: Condition; stmt: Stmt }> }).steps
      const stepResults: unknown[] = []
      const stepErrors: unknown[] = []
      steps.forEach((step, i) => {
        stepResults[i] = null
        stepErrors[i] = null
        if (step.condition !== undefined && !holds(step.condition, stepResults, stepErrors, stream)) return
        try {
          stepResults[i] = execute(stream, step.stmt)
        } catch (error) {
          const e = error as { message?: string; code?: string }
          stepErrors[i] = { message: e.message ?? String(error), code: e.code ?? 'UNKNOWN' }
        }
      })
      return { type: 'batch', result: { step_results: stepResults, step_errors: stepErrors } }
    }
    case 'sequence':
      stream.db.exec((req.sql as string | undefined) ?? stream.sqls.get(req.sql_id as number)!)
      return { type: 'sequence' }
    case 'store_sql':
      stream.sqls.set(req.sql_id as number, req.sql as string)
      return { type: 'store_sql' }
    case 'close_sql':
      stream.sqls.delete(req.sql_id as number)
      return { type: 'close_sql' }
    case 'get_autocommit':
      return { type: 'get_autocommit', is_autocommit: !stream.db.inTransaction }
    case 'close':
      return { type: 'close' }
    default:
      throw Object.assign(new Error(`unsupported request ${String(req.type)}`), { code: 'UNSUPPORTED' })
  }
}

function holds(condition: Condition, results: unknown[], errors: unknown[], stream: Stream): boolean {
  switch (condition.type) {
    case 'ok':
      return results[condition.step] !== null
    case 'error':
      return errors[condition.step] !== null
    case 'not':
      return !holds(condition.cond, results, errors, stream)
    case 'and':
      return condition.conds.every((c) => holds(c, results, errors, stream))
    case 'or':
      return condition.conds.some((c) => holds(c, results, errors, stream))
    case 'is_autocommit':
      return !stream.db.inTransaction
  }
}

function execute(stream: Stream, stmt: Stmt): unknown {
  const sql = stmt.sql ?? stream.sqls.get(stmt.sql_id!)!
  const prepared = stream.db.prepare(sql)
  prepared.safeIntegers(true)
  let returnsData = true
  try {
    prepared.raw(true)
  } catch {
    returnsData = false
  }
  const args: unknown = stmt.named_args?.length
    ? Object.fromEntries(stmt.named_args.map(({ name, value }) => [name.replace(/^[:@$]/, ''), fromHrana(value)]))
    : (stmt.args ?? []).map(fromHrana)
  let cols: Array<{ name: string; decltype: string | null }> = []
  let rows: unknown[][] = []
  if (returnsData) {
    cols = prepared.columns().map((column: { name: string; type: string | null }) => ({ name: column.name, decltype: column.type ?? null }))
    rows = (Array.isArray(args) ? prepared.all(...args) : prepared.all(args)) as unknown[][]
  } else if (Array.isArray(args)) prepared.run(...args)
  else prepared.run(args)
  const [changes, rowid] = stream.db.prepare('select changes(), last_insert_rowid()').raw(true).get() as [number, number]
  return {
    cols,
    rows: rows.map((row) => row.map(toHrana)),
    affected_row_count: changes,
    last_insert_rowid: rowid === 0 ? null : String(rowid),
  }
}

function fromHrana(value: HranaValue): unknown {
  switch (value.type) {
    case 'null':
      return null
    case 'integer':
      return BigInt(value.value)
    case 'float':
      return value.value
    case 'text':
      return value.value
    case 'blob':
      return Buffer.from(value.base64, 'base64')
  }
}

function toHrana(value: unknown): HranaValue {
  if (value === null || value === undefined) return { type: 'null' }
  if (typeof value === 'bigint') return { type: 'integer', value: String(value) }
  if (typeof value === 'number') return Number.isInteger(value) ? { type: 'integer', value: String(value) } : { type: 'float', value }
  if (typeof value === 'string') return { type: 'text', value }
  return { type: 'blob', base64: Buffer.from(value as Uint8Array).toString('base64') }
}
