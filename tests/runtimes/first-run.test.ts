/**
 * The example on Deno and Bun as a user runs it: after `npm start` wrote `.env`
 * from `.env.example` (blank `DATABASE_URL=`, `APP_URL=`, ...), with nothing in
 * the process environment, through `scripts/runtime.sh` as `npm run start:<runtime>`.
 * Each run is in a copy of the repository's layout (framework/, scripts/, the
 * example; node_modules linked), so that the defaults (storage/database.sqlite)
 * land in a temporary folder. runtimes.test.ts runs the conformance suite with
 * every setting in the environment; this one covers the `.env` a user has, and
 * `svc down` / `svc up` run beside the server, on Deno and Bun and on the
 * Node entry (examples/blog/runtimes/node.ts) alike.
 */
import { createClient } from '@libsql/client'
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { stopChild, waitForOutput } from '../helpers/child-process.ts'

const ROOT = resolve(import.meta.dirname, '../..')
const installed = spawnSync('bash', ['scripts/install-runtimes.sh', '--installed'], { cwd: ROOT }).status === 0
const SECRET = 'first-run-secret-0123456789abcdef0123456789'

const sandboxes: string[] = []
afterAll(() => {
  for (const dir of sandboxes) rmSync(dir, { recursive: true, force: true })
})

/** The repository's layout, with `.env` as `npm start` writes it (a fresh JWT_SECRET), `changes` applied. */
function sandbox(changes: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-first-run-'))
  sandboxes.push(dir)
  for (const entry of ['framework', 'scripts', 'deno.json', 'package.json', 'tsconfig.json']) cpSync(join(ROOT, entry), join(dir, entry), { recursive: true })
  cpSync(join(ROOT, 'examples/blog'), join(dir, 'examples/blog'), { recursive: true, filter: (source) => !source.includes('/storage/') })
  mkdirSync(join(dir, 'storage'))
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'))
  const values: Record<string, string> = { JWT_SECRET: SECRET, PORT: '0', MAIL_MAILER: 'console', ...changes }
  const env = readFileSync(join(ROOT, 'examples/blog/.env.example'), 'utf8').replace(/^([A-Z_]+)=.*$/gm, (line, name: string) =>
    name in values ? `${name}=${values[name]}` : line,
  )
  expect(env).toMatch(/^DATABASE_URL=$/m)
  writeFileSync(join(dir, '.env'), env)
  return dir
}

/** The process environment without any variable the app reads from `.env`: only the file speaks. */
function cleanEnv(): NodeJS.ProcessEnv {
  const names = [...readFileSync(join(ROOT, 'examples/blog/.env.example'), 'utf8').matchAll(/^([A-Z_]+)=/gm)].map((match) => match[1]!)
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' }
  for (const name of [...names, 'TRACE_DATABASE_URL', 'WORKERD_STORAGE']) delete env[name]
  return env
}

async function start(dir: string, runtime: string, env: NodeJS.ProcessEnv = {}): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const child = spawn('bash', ['scripts/runtime.sh', runtime], { cwd: dir, env: { ...cleanEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  const { match, output } = await waitForOutput(child, /svc blog on \w+: (http:\/\/\S+)/, runtime, 60_000)
  return { child, url: match[1]!, output }
}

/**
 * The Node entry as its header says to run it, from the sandbox's root: `node --import jiti/register examples/blog/runtimes/node.ts`.
 * Spawned, not imported: the entry reads .env and storage/ from its working directory and installs SIGINT/SIGTERM
 * handlers, which the test runner's process (shared with other files) must not get. 'svc' resolves to the built dist/.
 */
async function startNode(dir: string): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  if (!existsSync(join(dir, 'dist'))) symlinkSync(join(ROOT, 'dist'), join(dir, 'dist'))
  const child = spawn(process.execPath, ['--import', 'jiti/register', 'examples/blog/runtimes/node.ts'], { cwd: dir, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] })
  const { match, output } = await waitForOutput(child, /svc blog on Node: (http:\/\/\S+)/, 'node', 60_000)
  return { child, url: match[1]!, output }
}

/**
 * `svc down` then `svc up`, run from the sandbox's root as a user runs them beside the server at `url`: every request
 * answers 503 with Retry-After and the envelope, /health/live stays 200, and after `svc up` the app serves again.
 */
async function expectDownThenUp(dir: string, url: string): Promise<void> {
  const svc = (...argv: string[]) => {
    const result = spawnSync(process.execPath, [join(ROOT, 'dist/cli/bin.js'), ...argv, '--json'], { cwd: dir, env: cleanEnv(), encoding: 'utf8' })
    expect(result.status, result.stderr).toBe(0)
    return JSON.parse(result.stdout) as { down: boolean; file: string }
  }
  // No request before `svc down` reads the state (/health/live never does): the first one after it looks at the file.
  expect(svc('down', '--message', 'Upgrading the database.', '--retry', '120')).toMatchObject({ down: true, file: join(dir, 'storage/maintenance.json') })
  const down = await fetch(`${url}/api/v1/posts`)
  expect(down.status).toBe(503)
  expect(down.headers.get('retry-after')).toBe('120')
  expect(await down.json()).toEqual({ success: false, error: 'Upgrading the database.', code: 503, maintenance: { since: expect.any(String), retry_after: 120 } })
  expect((await fetch(`${url}/health/live`)).status).toBe(200) // the process is alive: orchestrators keep it

  expect(svc('up')).toMatchObject({ down: false })
  // The server looks at the file again at most once a second (docs/deployment.md): until then it answers as before, then 200.
  const deadline = Date.now() + 15_000
  let status = 503
  while (status === 503 && Date.now() < deadline) {
    const answer = await fetch(`${url}/api/v1/posts`)
    status = answer.status
    await answer.body?.cancel()
    if (status === 503) await new Promise((resolve) => setTimeout(resolve, 50))
  }
  expect(status).toBe(200)
}

async function json(response: Response): Promise<{ data?: Record<string, unknown> }> {
  return (await response.json()) as { data?: Record<string, unknown> }
}

/** Signs up a new user of the example served at `url`. */
function register(url: string, email: string): Promise<Response> {
  const password = 'correct-horse-42'
  return fetch(`${url}/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Ada', email, password, password_confirmation: password }),
  })
}

describe.skipIf(!installed && process.env.CI === undefined)('the example after `npm start` wrote .env', () => {
  for (const runtime of ['deno', 'bun']) {
    it(`${runtime}: blank values mean unset (storage/database.sqlite), and POST /api/v2/posts queues the author's mail`, async () => {
      const dir = sandbox()
      const server = await start(dir, runtime)
      try {
        expect((await fetch(`${server.url}/health/live`)).status).toBe(200)
        const registered = await register(server.url, `first-run-${runtime}@example.com`)
        expect(registered.status).toBe(201)
        const { token } = (await json(registered)).data as { token: string }
        const created = await fetch(`${server.url}/api/v2/posts`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'idempotency-key': `first-run-${runtime}` },
          body: JSON.stringify({ title: 'Queued', body: 'Mailed later' }),
        })
        expect(created.status).toBe(201)
      } finally {
        await stopChild(server.child)
      }
      // The default database, where `svc serve` and `svc queue:work` (Node) find it too: one job, the author's mail.
      const file = join(dir, 'storage/database.sqlite')
      expect(existsSync(file)).toBe(true)
      const client = createClient({ url: `file:${file}` })
      try {
        const jobs = await client.execute('select name, payload from jobs')
        expect(jobs.rows.map((row) => row.name)).toEqual(['svc.listener'])
        expect(String(jobs.rows[0]!.payload)).toContain('mail-author')
      } finally {
        client.close()
      }
    }, 120_000)
  }

  for (const runtime of ['deno', 'bun']) {
    it(`${runtime}: a fresh clone (no .env): .env is made from .env.example with a fresh JWT_SECRET, as npm start does, and the app serves`, async () => {
      const dir = sandbox()
      rmSync(join(dir, '.env'))
      // PORT only: the rest comes from the .env the script makes.
      const server = await start(dir, runtime, { PORT: '0' })
      try {
        expect(server.output()).toContain('Created .env with a fresh JWT_SECRET (development settings), as npm start does.')
        expect(server.output()).not.toMatch(/ConfigError/)
        expect((await register(server.url, `fresh-${runtime}@example.com`)).status).toBe(201)
      } finally {
        await stopChild(server.child)
      }
      const env = readFileSync(join(dir, '.env'), 'utf8')
      const secret = /^JWT_SECRET=(.*)$/m.exec(env)?.[1] ?? ''
      expect(secret).toMatch(/^[A-Za-z0-9_-]{64}$/)
      expect(env).toBe(readFileSync(join(dir, 'examples/blog/.env.example'), 'utf8').replace(/^JWT_SECRET=.*$/m, `JWT_SECRET=${secret}`))
      expect(statSync(join(dir, '.env')).mode & 0o077).toBe(0)
    }, 120_000)
  }

  for (const runtime of ['deno', 'bun']) {
    it(`${runtime}: svc down makes every request answer 503 with Retry-After, svc up serves again`, async () => {
      const dir = sandbox()
      const server = await start(dir, runtime)
      try {
        await expectDownThenUp(dir, server.url)
      } finally {
        await stopChild(server.child)
      }
    }, 120_000)
  }

  it('deno: HOST=localhost in .env (not in the environment) is the address --allow-net allows', async () => {
    const dir = sandbox({ HOST: 'localhost' })
    const server = await start(dir, 'deno')
    try {
      expect(server.output()).not.toMatch(/NotCapable/)
      expect((await fetch(`${server.url}/health/live`)).status).toBe(200)
    } finally {
      await stopChild(server.child)
    }
  }, 120_000)
})

// Node needs no runtime installed: always run.
describe('the example on Node (examples/blog/runtimes/node.ts) after `npm start` wrote .env', () => {
  it('node: svc down makes every request answer 503 with Retry-After, svc up serves again', async () => {
    const dir = sandbox()
    const server = await startNode(dir)
    try {
      await expectDownThenUp(dir, server.url)
    } finally {
      await stopChild(server.child)
    }
  }, 120_000)

  it('node: listens first, so that with APP_URL unset the link in the verification mail names the port it got (PORT=0)', async () => {
    const dir = sandbox()
    const server = await startNode(dir)
    try {
      expect(server.url).not.toMatch(/:0$/)
      expect((await register(server.url, 'node-links@example.com')).status).toBe(201)
      // MAIL_MAILER=console: the mail is printed once it is sent, after the answer.
      const deadline = Date.now() + 15_000
      while (!/verify/i.test(server.output()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
      const links = [...server.output().matchAll(/https?:\/\/[^\s"'<>)]+/g)].map((match) => match[0]).filter((link) => /verify/i.test(link))
      expect(links.length, server.output()).toBeGreaterThan(0)
      for (const link of links) expect(link.startsWith(`${server.url}/`), link).toBe(true)
    } finally {
      await stopChild(server.child)
    }
  }, 120_000)
})
