/**
 * `svc serve` in a temp copy of examples/blog: the first run creates .env
 * with a fresh secret, `--port 0` prints the URL it listens on, and SIGTERM
 * lets a request in flight finish before the process exits 0 (the real
 * binary, spawned). In-process: serve stops when its IO is aborted, config
 * errors name the variable, a busy port is a clear error.
 */
import { createServer } from 'node:net'
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { copyExampleApp, startSvc, waitForLine, type AppCopy } from '../helpers/cli.ts'
import { runSvc, startSvc as startInProcess } from '../helpers/run-svc.ts'

let app: AppCopy
beforeAll(() => {
  app = copyExampleApp()
  // A route that is still working when SIGTERM arrives, and finishes only after it.
  app.write(
    'routes/web.ts',
    app
      .read('routes', 'web.ts')
      .replace(
        /\}\)\s*$/,
        `  r.get('/slow', async () => {
    const terminated = new Promise((resolve) => process.once('SIGTERM', resolve))
    process.stderr.write('slow: started\\n')
    await terminated
    await new Promise((resolve) => setTimeout(resolve, 50))
    return { slow: 'done' }
  })
})
`,
      ),
  )
})
afterAll(() => app.remove())

function exitOf(child: ReturnType<typeof startSvc>): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)))
}

describe('svc serve', () => {
  it('first run creates .env, migrates (--migrate), serves on the printed URL, and stops gracefully on SIGTERM', async () => {
    rmSync(app.path('.env'), { force: true })
    const child = startSvc(['serve', '--port', '0', '--migrate'], { cwd: app.dir })
    const exited = exitOf(child)
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    try {
      const [, url] = await waitForLine(child.stdout, /^svc listening on (http:\/\/127\.0\.0\.1:\d+) \(development\)$/)
      expect(stderr).toContain(`Created ${app.path('.env')} with a fresh JWT_SECRET`)
      const secret = /^JWT_SECRET=(.*)$/m.exec(app.read('.env'))?.[1] ?? ''
      expect(secret.length).toBeGreaterThanOrEqual(32)

      const live = await fetch(`${url}/health/live`)
      expect(live.status).toBe(200)
      expect(await live.json()).toEqual({ success: true, data: { status: 'ok' } })
      expect(live.headers.get('x-service-trace-id')).toMatch(/^svc_[0-9a-f]{32}$/)

      expect(stderr).toMatch(/Migrated: \d+_create_posts_table/)
      const ready = await fetch(`${url}/health/ready`)
      expect(ready.status).toBe(200)
      expect((await ready.json()).data.checks.database.status).toBe('ok')
      const posts = await fetch(`${url}/api/v1/posts`)
      expect(await posts.json()).toEqual({ success: true, data: [] })
      // The request log redacts the query parameters the trace redacts: a secret in a URL stays out of the terminal.
      const logged = waitForLine(child.stdout, /^GET \/api\/v1\/posts\?(\S*) 200 [\d.]+ ms /)
      await (await fetch(`${url}/api/v1/posts?token=QuerySecret123&page=1`)).arrayBuffer()
      const [, query] = await logged
      expect(query).toBe('token=[REDACTED]&page=1')

      const slow = fetch(`${url}/slow`)
      await waitForLine(child.stderr, /^slow: started$/)
      child.kill('SIGTERM')
      const response = await slow
      expect(response.status).toBe(200)
      expect(await response.json()).toEqual({ success: true, data: { slow: 'done' } })
      expect(await exited).toBe(0)
      expect(stderr).toContain('SIGTERM: finishing in-flight requests')
    } finally {
      child.kill('SIGKILL')
    }
  })

  it('an existing .env is kept as it is', async () => {
    const before = `${app.read('.env.example').replace(/^JWT_SECRET=.*$/m, `JWT_SECRET=${'k'.repeat(40)}`)}# mine\n`
    app.write('.env', before)
    const child = startSvc(['serve', '--port', '0'], { cwd: app.dir })
    const exited = exitOf(child)
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    try {
      await waitForLine(child.stdout, /^svc listening on /)
      child.kill('SIGINT')
      expect(await exited, stderr).toBe(0)
      expect(stderr).not.toContain('Created')
      expect(app.read('.env')).toBe(before)
    } finally {
      child.kill('SIGKILL')
    }
  })

  it('in-process: serves until its IO is aborted, then closes and returns 0', async () => {
    const server = startInProcess(['serve', '--port', '0'], { cwd: app.dir })
    try {
      const [, url] = await server.waitFor(/^svc listening on (http:\/\/127\.0\.0\.1:\d+) /)
      expect((await fetch(`${url}/health/live`)).status).toBe(200)
    } finally {
      const { exitCode, stderr } = await server.stop()
      expect(exitCode).toBe(0)
      expect(stderr).toContain('SIGINT: finishing in-flight requests')
    }
  })

  it('development logs one line per request (method, path, status, ms, trace id); --quiet and production do not', async () => {
    const lines = async (argv: string[], env: Record<string, string> = {}) => {
      const server = startInProcess(['serve', '--port', '0', ...argv], { cwd: app.dir, env })
      try {
        const [, url] = await server.waitFor(/^svc listening on (http:\/\/127\.0\.0\.1:\d+) /)
        const missing = await fetch(`${url}/api/missing?x=1`)
        await missing.text()
        return { output: server.output.stdout.split('\n').filter((line) => /^[A-Z]+ \//.test(line)), traceId: missing.headers.get('x-service-trace-id') }
      } finally {
        await server.stop()
      }
    }
    const logged = await lines([])
    expect(logged.output).toEqual([expect.stringMatching(new RegExp(`^GET /api/missing\\?x=1 404 \\d+\\.\\d ms ${logged.traceId}$`))])
    expect((await lines(['--quiet'])).output).toEqual([])
    expect((await lines([], { APP_ENV: 'production', JWT_SECRET: 'q'.repeat(40) })).output).toEqual([])
  })

  it('production with APP_DEBUG on says so at start; without it, debug follows APP_ENV (off)', async () => {
    const start = async (env: Record<string, string>) => {
      const server = startInProcess(['serve', '--port', '0'], { cwd: app.dir, env: { APP_ENV: 'production', JWT_SECRET: 'q'.repeat(40), ...env } })
      try {
        await server.waitFor(/^svc listening on /)
        return { stderr: server.output.stderr }
      } finally {
        await server.stop()
      }
    }
    const debug = await start({ APP_DEBUG: 'true' })
    expect(debug.stderr).toContain('APP_DEBUG is on with APP_ENV=production: error responses carry exception messages and stack traces.')
    // The .env a first run writes (from .env.example) leaves APP_DEBUG empty, so production turns it off.
    expect(app.read('.env.example')).toMatch(/^APP_DEBUG=$/m)
    const quiet = await start({})
    expect(quiet.stderr).not.toContain('APP_DEBUG is on')
  })

  it('--port takes a port number: anything else fails before the app loads', async () => {
    for (const port of ['http', '70000', '-1']) {
      const { exitCode, stderr } = await runSvc(['serve', `--port=${port}`], { cwd: app.dir })
      expect(exitCode, port).toBe(1)
      expect(stderr).toContain(`error [E_BAD_OPTION]: --port takes a whole number from 0 to 65535, got "${port}"`)
    }
  })

  it('--migrate with a database server out of reach: E_DATABASE naming DATABASE_URL, exit 1', async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const port = (closed.address() as { port: number }).port
    await new Promise((resolve) => closed.close(resolve))
    const { exitCode, stderr } = await runSvc(['serve', '--migrate', '--port', '0'], { cwd: app.dir, env: { DATABASE_URL: `http://127.0.0.1:${port}` } })
    expect(exitCode).toBe(1)
    expect(stderr).toContain('error [E_DATABASE]: Cannot migrate the database: ')
    expect(stderr).toContain('fix: check DATABASE_URL')
  })

  it('a busy port: E_LISTEN with the fix, exit 1', async () => {
    const blocker = createServer()
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
    try {
      const port = (blocker.address() as { port: number }).port
      const { exitCode, stderr } = await runSvc(['serve', '--port', String(port)], { cwd: app.dir })
      expect(exitCode).toBe(1)
      expect(stderr).toContain(`error [E_LISTEN]: Cannot listen on port ${port}`)
      expect(stderr).toContain('--port')
    } finally {
      blocker.close()
    }
  })
})

describe('a HOST that is no address of this machine', () => {
  it.each([['999.1.1.1'], ['192.0.2.1']])('HOST=%s: E_LISTEN names the host and says what HOST must be, not "pick another port"', async (host) => {
    const { exitCode, stdout, stderr } = await runSvc(['serve', '--port', '0'], { cwd: app.dir, env: { HOST: host } })
    expect(exitCode).toBe(1)
    expect(stdout).toBe('')
    expect(stderr).toMatch(new RegExp(`^error \\[E_LISTEN\\]: Cannot listen on ${host.replaceAll('.', '\\.')}: .*(ENOTFOUND|EADDRNOTAVAIL)`, 'm'))
    expect(stderr).toContain('  fix: HOST (or --host) must be an address of this machine: 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)\n')
  })
})

describe('configuration errors name the variable', () => {
  it.each([
    ['PORT', 'eighty', 'serve'],
    ['JWT_SECRET', 'too-short', 'serve'],
    ['APP_DEBUG', 'perhaps', 'route:list'],
    ['TRACE_PREFIX', 'no spaces', 'migrate'],
  ])('%s=%s: `svc %s` exits 1 with E_CONFIG naming it', async (variable, value, command) => {
    const { exitCode, stderr } = await runSvc([command], { cwd: app.dir, env: { [variable]: value } })
    expect(exitCode).toBe(1)
    expect(stderr).toContain(`error [E_CONFIG]: Invalid configuration: ${variable}: `)
    expect(stderr).toContain(`fix: fix ${variable} in ${app.path('.env')} or the environment`)
  })

  it('a bad value in .env is reported the same way', async () => {
    const before = app.read('.env')
    try {
      app.write('.env', `${before}\nJWT_TTL=1h\n`)
      const { exitCode, stderr } = await runSvc(['route:list'], { cwd: app.dir })
      expect(exitCode).toBe(1)
      expect(stderr).toContain('error [E_CONFIG]: Invalid configuration: JWT_TTL: expected a whole number, got "1h"')
    } finally {
      app.write('.env', before)
    }
  })
})

describe('svc serve: the links in mails', () => {
  /** Serves on port 0, signs up `email`, stops the server; the served URL and the verification link mailed (storage/logs/mail.log). */
  async function signUp(email: string, env: Record<string, string> = {}): Promise<{ url: string; link: string | undefined }> {
    const child = startSvc(['serve', '--port', '0', '--migrate', '--quiet'], {
      cwd: app.dir,
      env: { MAIL_MAILER: 'log', PASSWORD_HASH_MEMORY_KIB: '64', PASSWORD_HASH_ITERATIONS: '1', ...env },
    })
    const exited = exitOf(child)
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    try {
      const [, url] = await waitForLine(child.stdout, /^svc listening on (http:\/\/127\.0\.0\.1:\d+) \(development\)$/)
      const password = 'correct horse battery staple'
      const response = await fetch(`${url}/api/auth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Ada', email, password, password_confirmation: password }),
      })
      expect(response.status, await response.text()).toBe(201)
      const link = await mailedLink(email)
      child.kill('SIGTERM')
      expect(await exited, stderr).toBe(0)
      return { url: url!, link }
    } finally {
      child.kill('SIGKILL')
    }
  }

  /** The verification link mailed to `email`: the mail is written after the answer (not awaited by Node's server), so the log is read until it is there. */
  async function mailedLink(email: string): Promise<string | undefined> {
    const log = app.path('storage', 'logs', 'mail.log')
    for (let i = 0; i < 500; i++) {
      const mail = existsSync(log) ? readFileSync(log, 'utf8').split(`To: ${email}\n`)[1] : undefined
      const link = mail === undefined ? undefined : /^(http\S+\/verify-email\?token=\S+)$/m.exec(mail)?.[1]
      if (link !== undefined) return link
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    return undefined
  }

  it('with APP_URL unset they point where the server listens (--port 0 included)', async () => {
    const { url, link } = await signUp('served@example.com')
    expect(link).toBeDefined()
    expect(new URL(link!).origin).toBe(url)
  })

  it('with APP_URL set they point there', async () => {
    const { url, link } = await signUp('configured@example.com', { APP_URL: 'https://blog.example.com/' })
    expect(link).toMatch(/^https:\/\/blog\.example\.com\/verify-email\?token=/)
    expect(link).not.toContain(url)
  })
})
