/**
 * A project made with `svc new` on Deno, Bun and Cloudflare Workers (wrangler
 * dev, local D1), through the scripts its package.json has, as its README says:
 * `npm run start:deno`, `npm run start:bun`, `npm run dev:workers`. One project
 * for the file, made with `--jwt=RS256` (the entries read storage/keys/ on Deno
 * and Bun, the Worker its pair from .dev.vars: before, Deno and Bun stopped on
 * "needs a key pair" and the Worker signed with HS256), with a `make:crud Post` resource added after it was made (the
 * scripts rewrite the migrations module first, so its table is there). On each:
 * register, login, create and list posts, and the traces stored where the
 * README says (storage/traces.sqlite, read by `svc trace:list`; the Worker's
 * TRACES D1, read by `wrangler d1 execute --local`). The runtimes come from
 * scripts/install-runtimes.sh, on PATH as a user has them.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { waitForOutput } from '../helpers/child-process.ts'

const ROOT = resolve(import.meta.dirname, '../..')
const installed = spawnSync('bash', ['scripts/install-runtimes.sh', '--installed'], { cwd: ROOT }).status === 0
const RUNTIMES_BIN = join(spawnSync('bash', ['scripts/install-runtimes.sh', '--print'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim(), 'node_modules/.bin')
const PASSWORD = 'a long passphrase'

let sandbox = ''
let project = ''
const children: ChildProcess[] = []

/** The environment a user's shell gives: deno, bun, wrangler (and the Node 22 wrangler needs) on PATH; PORT=0. */
function userEnv(): NodeJS.ProcessEnv {
  return { ...process.env, PATH: `${RUNTIMES_BIN}${delimiter}${process.env.PATH ?? ''}`, PORT: '0', NO_COLOR: '1', WRANGLER_SEND_METRICS: 'false', CI: '1' }
}

function svc(...argv: string[]): string {
  const result = spawnSync(process.execPath, [join(ROOT, 'dist/cli/bin.js'), ...argv], { cwd: project, env: userEnv(), encoding: 'utf8' })
  expect(result.status, result.stderr + result.stdout).toBe(0)
  return result.stdout
}

/** `npm run <script>` in its own process group, so that stopping it stops what it started (deno, bun, wrangler's workerd). */
async function npmRun(script: string, ready: RegExp, args: string[] = []): Promise<{ url: string; output: () => string; stop: () => Promise<void> }> {
  const child = spawn('npm', ['run', '--silent', script, ...(args.length ? ['--', ...args] : [])], { cwd: project, env: userEnv(), detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
  children.push(child)
  const { match, output } = await waitForOutput(child, ready, script, 90_000)
  return { url: match[1]!, output, stop: () => stopGroup(child) }
}

function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((done) => {
    const killer = setTimeout(() => signalGroup(child, 'SIGKILL'), 10_000)
    child.once('exit', () => {
      clearTimeout(killer)
      done()
    })
    signalGroup(child, 'SIGTERM')
  })
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal)
  } catch {
    // already gone
  }
}

async function post(url: string, body: unknown, token?: string): Promise<{ status: number; json: { success: boolean; data?: Record<string, unknown> } }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (token) headers.authorization = `Bearer ${token}`
  const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) })
  return { status: response.status, json: (await response.json()) as { success: boolean; data?: Record<string, unknown> } }
}

/** What a user does first on any runtime: register, log in, create a post, list the posts; and the listener runs. */
async function exercise(url: string, who: string, output: () => string): Promise<void> {
  const email = `${who}@example.com`
  const registered = await post(`${url}/api/auth/register`, { name: who, email, password: PASSWORD, password_confirmation: PASSWORD })
  expect(registered.status, JSON.stringify(registered.json)).toBe(201)
  const login = await post(`${url}/api/auth/login`, { email, password: PASSWORD })
  expect(login.status).toBe(200)
  const token = login.json.data!.token as string
  // Signed as the project says (JWT_ALGORITHM=RS256), with the key pair svc new made.
  expect(JSON.parse(atob(token.split('.')[0]!.replace(/-/g, '+').replace(/_/g, '/')))).toMatchObject({ alg: 'RS256' })
  const created = await post(`${url}/api/v1/posts`, { name: `${who}'s post` }, token)
  expect(created.status, JSON.stringify(created.json)).toBe(201)
  const list = await fetch(`${url}/api/v1/posts`, { headers: { authorization: `Bearer ${token}` } })
  expect(list.status).toBe(200)
  const names = ((await list.json()) as { data: { name: string }[] }).data.map((row) => row.name)
  expect(names).toContain(`${who}'s post`)
  // app/listeners/index.ts is registered: the listener logs the event (before, the runtimes' app never loaded it).
  expect((await post(`${url}/api/v1/ping`, {})).status).toBe(200)
  await expect.poll(() => output(), { timeout: 10_000 }).toMatch(/Pinged.*42/s)
}

describe.skipIf(!installed)('a new project on Deno, Bun and Workers, through its package.json scripts', () => {
  beforeAll(() => {
    sandbox = mkdtempSync(join(tmpdir(), 'svc-new-runtimes-'))
    spawnSync(process.execPath, [join(ROOT, 'dist/cli/bin.js'), 'new', 'app', '--jwt=RS256'], { cwd: sandbox, env: userEnv() })
    project = join(sandbox, 'app')
    // What `npm install` gives it, without the network: svc (this checkout, built), valibot, and the `svc` command.
    mkdirSync(join(project, 'node_modules/.bin'), { recursive: true })
    symlinkSync(ROOT, join(project, 'node_modules/svc'))
    symlinkSync(join(ROOT, 'node_modules/valibot'), join(project, 'node_modules/valibot'))
    symlinkSync(join(ROOT, 'dist/cli/bin.js'), join(project, 'node_modules/.bin/svc'))
    // No chmod here: `npm run build` makes dist/cli/bin.js executable, as npm does a bin it links (tsc alone writes it 644,
    // and the scripts' `svc` was refused on a fresh clone).
    svc('make:crud', 'Post')
    // A listener as a user adds one (svc make:listener), and a route that emits its event: it runs on every runtime.
    svc('make:listener', 'AnnouncePing', '--event=Pinged')
    writeFileSync(join(project, 'app/controllers/ping.ts'), [
      "import { emit, type Context } from 'svc'",
      "import { Pinged } from '../events/pinged.ts'",
      'export async function ping(c: Context): Promise<{ pinged: boolean }> {',
      '  await emit(new Pinged(42), c)',
      '  return { pinged: true }',
      '}',
      '',
    ].join('\n'))
    const routes = readFileSync(join(project, 'routes/api.ts'), 'utf8')
    writeFileSync(join(project, 'routes/api.ts'), `import * as ping from '../app/controllers/ping.ts'\n${routes.replace('r.version(1, (r) => {', "r.version(1, (r) => {\n    r.post('/ping', ping.ping)")}`)
  }, 60_000)

  afterAll(async () => {
    await Promise.all(children.map(stopGroup))
    if (sandbox) rmSync(sandbox, { recursive: true, force: true })
  })

  for (const runtime of ['deno', 'bun'] as const) {
    it(`npm run start:${runtime}: the posts table is migrated, register, login and posts work, traces land in storage/traces.sqlite`, async () => {
      const server = await npmRun(`start:${runtime}`, /Serving on \w+: (http:\/\/\S+)/)
      try {
        await exercise(server.url, `${runtime}-user`, server.output)
      } finally {
        await server.stop()
      }
      const { traces } = JSON.parse(svc('trace:list', '--json')) as { traces: { path: string; status_code: number }[] }
      expect(traces.map((trace) => `${trace.status_code} ${trace.path}`)).toEqual(expect.arrayContaining(['201 /api/v1/posts', '200 /api/auth/login']))
    }, 120_000)
  }

  it('npm run dev:workers: wrangler dev with local D1, the same flow, traces in the TRACES database', async () => {
    const server = await npmRun('dev:workers', /Ready on (http:\/\/\S+)/, ['--ip', '127.0.0.1', '--port', '0', '--inspector-port', '0'])
    try {
      await exercise(server.url, 'worker-user', server.output)
      // The trace is written through ctx.waitUntil, after the answer: read until it is there.
      await expect.poll(() => workerTraces(), { timeout: 30_000, interval: 500 }).toContain('/api/v1/posts')
    } finally {
      await server.stop()
    }
  }, 180_000)
})

/** The Worker's traces as the README says to read them: `npx wrangler d1 execute <name>-traces --local`. */
function workerTraces(): string {
  const name = /^name = "(.+)"$/m.exec(readFileSync(join(project, 'wrangler.toml'), 'utf8'))![1]!
  const result = spawnSync('wrangler', ['d1', 'execute', `${name}-traces`, '--local', '--json', '--command', 'select data from svc_trace_batches'], { cwd: project, env: userEnv(), encoding: 'utf8' })
  return result.stdout
}
