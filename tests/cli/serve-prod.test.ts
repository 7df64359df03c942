/**
 * `svc serve:prod` (alias frankenphp:serve), the real binary spawned in a
 * temp copy of examples/blog with 2 workers: a killed worker is replaced and
 * the others keep serving; SIGHUP replaces every worker one by one while a
 * bounded load loop runs, and no request fails (a request in flight on an
 * old worker finishes); `svc down` reaches every worker; SIGTERM lets a
 * request in flight finish before the process exits 0. The Docker files are
 * checked for what they must say and linted (docker itself cannot run here).
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { validate, ValidationSeverity } from 'dockerfile-utils'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { addWebRoutes, copyExampleApp, slowRoute, startSvc, type AppCopy } from '../helpers/cli.ts'
import { runSvc } from '../helpers/run-svc.ts'

const ENV = { APP_ENV: 'production', JWT_SECRET: 'p'.repeat(48), TRACE_MODE: 'errors' }

let app: AppCopy
beforeAll(async () => {
  app = copyExampleApp()
  addWebRoutes(app, `${slowRoute('/slow', app.path('storage', 'release'))}\n  r.get('/pid', () => ({ pid: process.pid }))`)
  const migrated = await runSvc(['migrate', '--force'], { cwd: app.dir, env: ENV })
  expect(migrated.exitCode, migrated.stderr).toBe(0)
})
afterAll(() => app.remove())

interface Server {
  child: ReturnType<typeof startSvc>
  out: { stdout: string; stderr: string }
  url: string
  exited: Promise<number | null>
  /** Waits for an output line matching `pattern` written after `from` characters. */
  line(pattern: RegExp, from?: number, stream?: 'stdout' | 'stderr'): Promise<RegExpMatchArray>
  pids(): number[]
}

async function startProd(args: string[], env: Record<string, string> = {}): Promise<Server> {
  const child = startSvc(['serve:prod', '--port', '0', ...args], { cwd: app.dir, env: { ...ENV, ...env } })
  const out = { stdout: '', stderr: '' }
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out.stdout += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (out.stderr += chunk))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const line = async (pattern: RegExp, from = 0, stream: 'stdout' | 'stderr' = 'stdout') => {
    const deadline = Date.now() + 60_000
    for (;;) {
      const match = out[stream].slice(from).split('\n').map((text) => pattern.exec(text)).find((found) => found !== null)
      if (match) return match
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no ${stream} line matching ${pattern}\nstdout: ${out.stdout}\nstderr: ${out.stderr}`)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
  const [, url] = await line(/^svc serve:prod listening on (http:\/\/127\.0\.0\.1:\d+) \(production, /)
  /** The workers serving now: each listening line not followed by its death or replacement. */
  const pids = () => {
    const started = [...out.stdout.matchAll(/^worker \d+ listening \(pid (\d+)\)$/gm)].map((match) => Number(match[1]))
    const gone = new Set([...out.stderr.matchAll(/\(pid (\d+)\) died/g)].map((match) => Number(match[1])))
    return started.filter((pid) => !gone.has(pid) && isAlive(pid))
  }
  return { child, out, url: url!, exited, line, pids }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

async function pidOf(url: string): Promise<number> {
  return ((await (await fetch(`${url}/pid`)).json()) as { data: { pid: number } }).data.pid
}

/** Until `done` resolves, `clients` loops each send requests one after another; returns every failure. */
async function loadLoop(url: string, clients: number, done: Promise<unknown>, maxPerClient = 3000): Promise<{ sent: number; failures: string[] }> {
  let finished = false
  void done.then(() => (finished = true))
  let sent = 0
  const failures: string[] = []
  await Promise.all(
    Array.from({ length: clients }, async () => {
      // A few more requests after the reload: they reach only new workers.
      for (let i = 0, after = 0; i < maxPerClient && after < 20; i++) {
        if (finished) after++
        sent++
        try {
          const response = await fetch(`${url}/api/v1/posts`)
          const body = await response.text()
          if (response.status !== 200) failures.push(`${response.status} ${body.slice(0, 120)}`)
        } catch (error) {
          failures.push(String((error as Error & { cause?: Error }).cause ?? error))
        }
      }
    }),
  )
  return { sent, failures }
}

describe('svc serve:prod with 2 workers', () => {
  it('replaces a killed worker; SIGHUP reloads them one by one under load without a failed request; SIGTERM finishes in-flight requests', async () => {
    rmSync(app.path('storage', 'release'), { force: true })
    const server = await startProd(['--workers', '2'])
    try {
      await server.line(/^worker 2 listening \(pid \d+\)$/)
      const [first, second] = server.pids()
      expect(server.pids()).toHaveLength(2)

      // A killed worker: the other one keeps answering, and a new one takes its place.
      let mark = server.out.stderr.length
      process.kill(first!, 'SIGKILL')
      await server.line(new RegExp(`^worker 1 \\(pid ${first}\\) died \\(signal SIGKILL\\); starting a new one$`), mark, 'stderr')
      expect((await fetch(`${server.url}/health/live`)).status).toBe(200)
      await server.line(/^worker 3 listening \(pid \d+\)$/)
      expect(server.pids()).toHaveLength(2)
      expect(server.pids()).toContain(second)

      // A request in flight on an old worker, then SIGHUP under load.
      const slow = fetch(`${server.url}/slow`)
      const [, slowPid] = await server.line(/^slow: started in (\d+)$/, 0, 'stderr')
      expect(server.pids()).toContain(Number(slowPid))
      const before = server.pids()
      mark = server.out.stderr.length
      server.child.kill('SIGHUP')
      const reloaded = server.line(/^Reloaded: every worker runs the current code\.$/, mark, 'stderr')
      const load = loadLoop(server.url, 6, reloaded)
      await reloaded
      writeFileSync(app.path('storage', 'release'), '')
      const { sent, failures } = await load
      expect(failures, `${failures.length} of ${sent} requests failed`).toEqual([])
      expect(sent).toBeGreaterThan(20)
      const slowResponse = await slow
      expect(slowResponse.status).toBe(200)
      expect((await slowResponse.json()).data).toEqual({ slow: 'done', pid: Number(slowPid) })

      // The drained worker exits once its last request is answered: a moment after it, on a loaded machine.
      const deadline = Date.now() + 15_000
      while (server.pids().some((pid) => before.includes(pid)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
      const after = server.pids()
      expect(after).toHaveLength(2)
      for (const pid of before) expect(after).not.toContain(pid)
      expect(after).toContain(await pidOf(server.url))

      // SIGTERM: the request in flight finishes, then the process exits 0.
      rmSync(app.path('storage', 'release'), { force: true })
      const inFlight = fetch(`${server.url}/slow`)
      mark = server.out.stderr.length
      await server.line(/^slow: started in \d+$/, mark, 'stderr')
      server.child.kill('SIGTERM')
      await server.line(/^SIGTERM: the workers finish their in-flight requests/, mark, 'stderr')
      writeFileSync(app.path('storage', 'release'), '')
      expect((await inFlight).status).toBe(200)
      expect(await server.exited).toBe(0)
      for (const pid of after) expect(isAlive(pid)).toBe(false)
    } finally {
      server.child.kill('SIGKILL')
      rmSync(app.path('storage', 'release'), { force: true })
    }
  }, 240_000)

  it('maintenance mode reaches every worker: 503 with Retry-After, /health/live stays up, the secret passes; up ends it', async () => {
    const server = await startProd(['--workers', '2'])
    try {
      await server.line(/^worker 2 listening \(pid \d+\)$/)
      const down = await runSvc(['down', '--retry', '30', '--secret', 'let-me-in-1234'], { cwd: app.dir, env: ENV })
      expect(down.exitCode, down.stderr).toBe(0)

      const statuses = async (count: number) => Promise.all(Array.from({ length: count }, async () => (await fetch(`${server.url}/api/v1/posts`, { headers: { connection: 'close' } })).status))
      await expectEventually(async () => expect(await statuses(6)).toEqual(Array(6).fill(503)))
      // Every worker answers 503 (fresh connections go round the workers).
      for (let i = 0; i < 12; i++) {
        const response = await fetch(`${server.url}/api/v1/posts`, { headers: { connection: 'close' } })
        expect(response.status).toBe(503)
        expect(response.headers.get('retry-after')).toBe('30')
        expect(await response.json()).toMatchObject({ success: false, code: 503 })
      }
      expect((await fetch(`${server.url}/health/live`)).status).toBe(200)
      expect((await fetch(`${server.url}/health/ready`)).status).toBe(503)
      const bypass = await fetch(`${server.url}/api/v1/posts`, { headers: { 'x-maintenance-bypass': 'let-me-in-1234' } })
      expect(bypass.status).toBe(200)

      const up = await runSvc(['up'], { cwd: app.dir, env: ENV })
      expect(up.exitCode).toBe(0)
      await expectEventually(async () => expect(await statuses(6)).toEqual(Array(6).fill(200)))
      expect((await fetch(`${server.url}/health/ready`)).status).toBe(200)
    } finally {
      server.child.kill('SIGTERM')
      await server.exited
    }
  }, 120_000)

  it('frankenphp:serve is the same command; --reload signals the running server, or says none runs', async () => {
    const none = await runSvc(['frankenphp:serve', '--reload'], { cwd: app.dir, env: ENV })
    expect(none.exitCode).toBe(0)
    expect(none.stdout).toContain('No production server is running')
    const help = await runSvc(['frankenphp:serve', '--help'], { cwd: app.dir })
    expect(help.stdout).toContain('serve:prod')
    expect(help.stdout).toContain('frankenphp:serve')
  })
})

describe('svc serve:prod --docker', () => {
  it('writes a multi-stage Dockerfile (non-root, HEALTHCHECK on /health/live) and a .dockerignore that keeps secrets out; lints clean', async () => {
    const result = await runSvc(['serve:prod', '--docker'], { cwd: app.dir })
    expect(result.exitCode, result.stderr).toBe(0)
    const dockerfile = readFileSync(app.path('Dockerfile'), 'utf8')
    const ignore = readFileSync(app.path('.dockerignore'), 'utf8').split('\n')

    // The linter (the VS Code Docker extension's): no error or warning.
    const problems = validate(dockerfile, { deprecatedMaintainer: ValidationSeverity.ERROR, emptyContinuationLine: ValidationSeverity.ERROR })
    expect(problems.map((problem) => `${problem.range.start.line + 1}: ${problem.message}`)).toEqual([])

    const instructions = dockerfile
      .replace(/\\\n\s*/g, ' ')
      .split('\n')
      .filter((line) => line.trim() !== '' && !line.startsWith('#'))
      .map((line) => line.trim())
    const froms = instructions.filter((line) => line.startsWith('FROM '))
    expect(froms).toEqual(['FROM node:20-bookworm-slim AS build', 'FROM node:20-bookworm-slim AS runtime'])
    const runtime = instructions.slice(instructions.indexOf(froms[1]!))
    expect(runtime).toContain('COPY --from=build /app /app')
    // Non-root before anything runs, and the storage folder is that user's.
    const user = runtime.findIndex((line) => line.startsWith('USER '))
    expect(runtime[user]).toBe('USER node')
    expect(user).toBeLessThan(runtime.findIndex((line) => line.startsWith('CMD ')))
    expect(runtime.some((line) => /^RUN mkdir -p \/app\/storage && chown -R node:node \/app\/storage$/.test(line))).toBe(true)
    const healthcheck = runtime.find((line) => line.startsWith('HEALTHCHECK '))
    expect(healthcheck).toContain('/health/live')
    expect(healthcheck).toMatch(/CMD \["node", "-e", /)
    expect(runtime.at(-1)).toBe('CMD ["node", "node_modules/svc/dist/cli/bin.js", "serve:prod"]')
    expect(runtime).toContain('EXPOSE 8080')
    expect(dockerfile).not.toMatch(/JWT_SECRET|API_KEY|PASSWORD/)
    for (const entry of ['.env', '.env.*', '!.env.example', 'node_modules', 'storage/*', '.git']) expect(ignore).toContain(entry)

    // The example has no package.json of its own: no dependency from a path, no warning.
    expect(result.stderr).not.toContain('outside the build context')

    const again = await runSvc(['serve:prod', '--docker'], { cwd: app.dir })
    expect(again.exitCode).toBe(1)
    expect(again.stderr).toContain('error [E_EXISTS]')
    expect((await runSvc(['serve:prod', '--docker', '--force'], { cwd: app.dir })).exitCode).toBe(0)
  })
})

describe('svc serve:prod --docker with dependencies from a path', () => {
  const dockerFor = async (dependencies: Record<string, string>) => {
    const project = copyExampleApp()
    try {
      writeFileSync(project.path('package.json'), JSON.stringify({ name: 'my-api', private: true, dependencies }))
      const result = await runSvc(['serve:prod', '--docker'], { cwd: project.dir })
      return { ...result, dockerfile: readFileSync(project.path('Dockerfile'), 'utf8') }
    } finally {
      project.remove()
    }
  }

  it('a path outside the project (svc new in a checkout: file:../svc) is a warning naming it and the fix', async () => {
    const outside = await dockerFor({ svc: 'file:../svc', valibot: '^1.0.0' })
    expect(outside.exitCode).toBe(0)
    expect(outside.stderr).toContain('warning: svc is installed from "file:../svc", outside the build context: docker build cannot install it.')
    expect(outside.stderr).toContain('npm pack')
    expect(outside.stderr).not.toContain('valibot')
  })

  it('a packed tarball in the project is copied before the install', async () => {
    const inside = await dockerFor({ svc: 'file:vendor/svc-0.1.0.tgz' })
    expect(inside.stderr).not.toContain('outside the build context')
    const build = inside.dockerfile.split('\n')
    expect(build.indexOf('COPY . .')).toBeGreaterThan(-1)
    expect(build.indexOf('COPY . .')).toBeLessThan(build.findIndex((line) => /^RUN npm (ci|install)$/.test(line)))
  })
})

async function expectEventually(check: () => Promise<void>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      return await check()
    } catch (error) {
      if (Date.now() > deadline) throw error
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
}
