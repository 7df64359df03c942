/**
 * The example app on each runtime (Node, Deno, Bun, workerd through
 * Miniflare), started the way `npm start` / `npm run start:<runtime>` start
 * it, on a fresh database migrated on first start: the conformance suite
 * runs against it, the server is stopped (SIGTERM: the traces are flushed),
 * and every trace id the responses carried is read back from the runtime's
 * trace store (`svc trace:list --json`; for workerd the TRACES D1 through
 * `scripts/runtime.sh workerd-traces`). The runtimes come from npm
 * (scripts/install-runtimes.sh, which `npm test` runs through
 * scripts/ensure-test-deps.sh). Each leg's time is printed.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdirSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { conformance } from './conformance.ts'
import { stopChild, waitForOutput } from '../helpers/child-process.ts'

const ROOT = resolve(import.meta.dirname, '../..')
const JWT_SECRET = 'conformance-suite-secret-0123456789abcdef'
const installed = spawnSync('bash', ['scripts/install-runtimes.sh', '--installed'], { cwd: ROOT }).status === 0

interface TraceFacts {
  trace_id: string
  ip: string | null
  memory_mb: number | null
}

interface Leg {
  name: string
  command: string[]
  /** The trace ids the store holds after the run. */
  readTraces(storage: string): Array<{ trace_id: string }>
  /** One stored record: the peer address the adapter passed, and what the runtime could read of its memory. */
  readRecord(storage: string, traceId: string): TraceFacts
  /** `memory_mb`: a number where the runtime can read its memory, null where it cannot (Workers). */
  memory: 'number' | 'null'
}

const cliTraces = (storage: string) => {
  const out = spawnSync(process.execPath, ['dist/cli/bin.js', 'trace:list', '--json', '--limit', '1000'], {
    cwd: ROOT,
    env: { ...process.env, TRACE_DATABASE_URL: `file:${join(storage, 'traces.sqlite')}` },
    encoding: 'utf8',
  })
  if (out.status !== 0) throw new Error(`trace:list failed: ${out.stderr}`)
  return (JSON.parse(out.stdout) as { traces: Array<{ trace_id: string }> }).traces
}

const cliRecord = (storage: string, traceId: string): TraceFacts => {
  const out = spawnSync(process.execPath, ['dist/cli/bin.js', 'log:trace', traceId, '--json'], {
    cwd: ROOT,
    env: { ...process.env, TRACE_DATABASE_URL: `file:${join(storage, 'traces.sqlite')}` },
    encoding: 'utf8',
  })
  if (out.status !== 0) throw new Error(`log:trace failed: ${out.stderr}`)
  return (JSON.parse(out.stdout) as { trace: TraceFacts }).trace
}

const workerdTraces = (storage: string): TraceFacts[] => {
  const out = spawnSync('bash', ['scripts/runtime.sh', 'workerd-traces', '1000'], { cwd: ROOT, env: { ...process.env, WORKERD_STORAGE: storage }, encoding: 'utf8' })
  if (out.status !== 0) throw new Error(`workerd-traces failed: ${out.stderr}`)
  return (JSON.parse(out.stdout) as { traces: TraceFacts[] }).traces
}

const LEGS: Leg[] = [
  { name: 'node', command: [process.execPath, 'dist/cli/bin.js', 'serve', '--migrate'], readTraces: cliTraces, readRecord: cliRecord, memory: 'number' },
  { name: 'deno', command: ['bash', 'scripts/runtime.sh', 'deno'], readTraces: cliTraces, readRecord: cliRecord, memory: 'number' },
  { name: 'bun', command: ['bash', 'scripts/runtime.sh', 'bun'], readTraces: cliTraces, readRecord: cliRecord, memory: 'number' },
  {
    name: 'workerd',
    command: ['bash', 'scripts/runtime.sh', 'workerd'],
    readTraces: workerdTraces,
    readRecord: (storage, traceId) => workerdTraces(storage).find((record) => record.trace_id === traceId)!,
    memory: 'null',
  },
]

const timings: string[] = []
afterAll(() => {
  if (timings.length > 0) console.log(`runtime legs: ${timings.join(', ')}`)
})

describe.skipIf(!installed && process.env.CI === undefined)('the example app on each runtime', () => {
  it('has its runtimes installed (scripts/install-runtimes.sh)', () => expect(installed).toBe(true))

  for (const leg of LEGS) {
    it(`${leg.name}: passes the conformance suite, migrated on first start, every request's trace stored`, async () => {
      const started = performance.now()
      const storage = join(ROOT, 'storage', 'tests', `${leg.name}-${process.pid}`)
      rmSync(storage, { recursive: true, force: true })
      mkdirSync(storage, { recursive: true })
      const server = await start(leg, storage)
      let traceIds: string[]
      try {
        ;({ traceIds } = await conformance(server.url))
      } finally {
        await stopChild(server.child)
      }
      // Stopped: the traces were flushed (Node, Deno, Bun: on SIGTERM; workerd: through waitUntil, per request).
      const stored = new Set(leg.readTraces(storage).map((row) => row.trace_id))
      expect(traceIds.filter((id) => !stored.has(id))).toEqual([])
      // The adapter passed the peer's address; a runtime that cannot read its memory records null, not a crash.
      const record = leg.readRecord(storage, traceIds.at(-1)!)
      expect(record.ip).toBe('127.0.0.1')
      if (leg.memory === 'null') expect(record.memory_mb).toBeNull()
      else expect(record.memory_mb).toBeGreaterThan(0)
      rmSync(storage, { recursive: true, force: true })
      timings.push(`${leg.name} ${((performance.now() - started) / 1000).toFixed(1)} s`)
    }, 180_000)
  }
})

async function start(leg: Leg, storage: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(leg.command[0]!, leg.command.slice(1), {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      APP_ENV: 'development',
      JWT_SECRET,
      DATABASE_URL: `file:${join(storage, 'database.sqlite')}`,
      TRACE_DATABASE_URL: `file:${join(storage, 'traces.sqlite')}`,
      WORKERD_STORAGE: storage,
      // The log driver would append to the repository's storage/logs/mail.log: the mails go to the captured output instead.
      MAIL_MAILER: 'console',
      NO_COLOR: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const { match } = await waitForOutput(child, /(http:\/\/127\.0\.0\.1:\d+)/, leg.name, 120_000)
  return { child, url: match[1]! }
}

