/**
 * The configuration and environment commands in a temp copy of examples/blog:
 * config:cache signs what it writes (HMAC-SHA256 over the canonical JSON,
 * key from HKDF of APP_KEY or JWT_SECRET in the real environment) and a start
 * refuses a cache that is altered, unsigned or signed with another key, and
 * goes on from .env; config:clear; env:cache leaves sensitive values out;
 * env:check lists every problem; env:switch keeps a backup; optimize makes
 * and clears its caches.
 */
import { createHmac, hkdfSync } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeEach, describe, expect, it } from 'vitest'
import { bufferIO } from '../../cli/output/io.ts'
import { canonicalJson } from '../../cli/project/config-cache.ts'
import { loadConfig } from '../../cli/project/load-app.ts'
import { projectFor } from '../../cli/project/project.ts'
import { copyExampleApp, svcEnv } from '../helpers/cli.ts'
import { expectContract, runSvc, startSvc, svcJson } from '../helpers/run-svc.ts'

const app = copyExampleApp()
afterAll(() => app.remove())

const SECRET = 'S3cret-for-the-config-cache-test-0123456789abcdef'
const OTHER = 'An0ther-secret-entirely-for-a-foreign-key-0123456789'
const cacheFile = () => app.path('storage', 'cache', 'config.json')

function writeEnv(extra = '') {
  app.write('.env', `APP_ENV=development\nJWT_SECRET=${SECRET}\nTRACE_PREFIX=fromenv\nJWT_TTL=900\n${extra}`)
}

/** The settings a command would start with, and what it said on stderr. */
function startingConfig(env: Record<string, string> = {}) {
  const io = bufferIO({ cwd: app.dir, env: svcEnv(env) })
  const config = loadConfig(projectFor(io))
  return { config, stderr: io.output.stderr }
}

beforeEach(() => {
  rmSync(app.path('storage', 'cache'), { recursive: true, force: true })
  writeEnv()
})

describe('svc config:cache', () => {
  it('writes the resolved settings, signed with HMAC-SHA256 over the canonical JSON and an HKDF key from JWT_SECRET; mode 600', async () => {
    const result = await svcJson(['config:cache'], { cwd: app.dir })
    expect(result).toEqual({ file: cacheFile(), action: 'written', key_source: 'JWT_SECRET' })
    expect((statSync(cacheFile()).mode & 0o777).toString(8)).toBe('600')
    const cache = JSON.parse(readFileSync(cacheFile(), 'utf8'))
    expect(cache.config).toMatchObject({ env: 'development', tracePrefix: 'fromenv', jwtTtl: 900 })
    expect(cache.vars).toMatchObject({ TRACE_PREFIX: 'fromenv', JWT_SECRET: SECRET })
    // .env's names and the ones svc reads, never the rest of the process environment.
    expect(cache.vars.PATH).toBeUndefined()
    expect(cache.vars.HOME).toBeUndefined()

    // Recomputed here from the documented construction.
    const key = Buffer.from(hkdfSync('sha256', SECRET, 'svc config cache', 'svc/config-cache/hmac-sha256/v1', 32))
    const { signature, ...body } = cache
    expect(signature).toBe(createHmac('sha256', key).update(canonicalJson(body)).digest('hex'))
  })

  it('a valid cache is what a start uses, even after .env changed (said once)', async () => {
    await svcJson(['config:cache'], { cwd: app.dir })
    app.write('.env', app.read('.env').replace('TRACE_PREFIX=fromenv', 'TRACE_PREFIX=edited'))
    const { config, stderr } = startingConfig()
    expect(config.tracePrefix).toBe('fromenv')
    expect(stderr).toContain('error [E_CONFIG_CACHE_STALE]')
    expect(stderr.match(/E_CONFIG_CACHE_STALE/g)).toHaveLength(1)
  })

  it('a variable the environment sets differently is ignored, and said so (names only, never values)', async () => {
    await svcJson(['config:cache'], { cwd: app.dir })
    const { config, stderr } = startingConfig({ TRACE_PREFIX: 'overridden' })
    expect(config.tracePrefix).toBe('fromenv')
    expect(stderr).toContain('error [E_CONFIG_CACHE_OVERRIDE]: the environment sets TRACE_PREFIX, ignored: the config cache holds the settings this start uses')
    expect(stderr).not.toContain('overridden')
    // The same values as the cache's: nothing to say.
    expect(startingConfig({ TRACE_PREFIX: 'fromenv' }).stderr).not.toContain('E_CONFIG_CACHE_OVERRIDE')
  })

  it.each([
    ['altered', (cache: any) => ({ ...cache, vars: { ...cache.vars, TRACE_PREFIX: 'evil', APP_DEBUG: 'true' } }), 'was altered after it was signed'],
    ['unsigned', ({ signature: _signature, ...cache }: any) => cache, 'is not signed'],
    ['signature emptied', (cache: any) => ({ ...cache, signature: '' }), 'is not signed'],
    ['not JSON', () => '{"vars": ', 'is not valid JSON'],
  ])('%s: refused with the fix, and the start goes on from .env', async (_case, tamper, reason) => {
    await svcJson(['config:cache'], { cwd: app.dir })
    const changed = tamper(JSON.parse(readFileSync(cacheFile(), 'utf8')))
    writeFileSync(cacheFile(), typeof changed === 'string' ? changed : JSON.stringify(changed))
    const { config, stderr } = startingConfig()
    expect(config.tracePrefix).toBe('fromenv')
    expect(config.debug).toBe(true) // development's default, from .env; not the cache's
    expect(stderr).toContain(`error [E_CONFIG_CACHE]: ${cacheFile()} ${reason}: refused, and ignored`)
    expect(stderr).toContain('fix: svc config:clear removes it')
  })

  it('a cache signed with another key (another JWT_SECRET, or APP_KEY) is refused; APP_KEY wins over JWT_SECRET', async () => {
    await svcJson(['config:cache'], { cwd: app.dir, env: { JWT_SECRET: OTHER } })
    let { config, stderr } = startingConfig()
    expect(stderr).toContain("was signed with another key (not this environment's JWT_SECRET)")
    expect(config.jwtSecret).toBe(SECRET)

    const appKey = 'K'.repeat(10) + 'an-app-key-that-is-long-enough-1234567890'
    expect(await svcJson(['config:cache'], { cwd: app.dir, env: { APP_KEY: appKey } })).toMatchObject({ key_source: 'APP_KEY' })
    ;({ stderr } = startingConfig())
    expect(stderr).toContain("was signed with another key (not this environment's JWT_SECRET)")
    ;({ config, stderr } = startingConfig({ APP_KEY: appKey }))
    expect(stderr).toBe('')
    expect(config.tracePrefix).toBe('fromenv')
  })

  it('a served app refuses a tampered cache and serves with .env', async () => {
    await svcJson(['config:cache'], { cwd: app.dir })
    const cache = JSON.parse(readFileSync(cacheFile(), 'utf8'))
    cache.vars.TRACE_PREFIX = 'evil'
    writeFileSync(cacheFile(), JSON.stringify(cache))
    const server = startSvc(['serve', '--port', '0', '--quiet'], { cwd: app.dir })
    try {
      const [, url] = await server.waitFor(/^svc listening on (http:\/\/127\.0\.0\.1:\d+) /)
      const response = await fetch(`${url}/health/live`)
      expect(response.headers.get('x-service-trace-id')).toMatch(/^fromenv_/)
      expect(server.output.stderr).toContain('error [E_CONFIG_CACHE]')
    } finally {
      await server.stop()
    }
  })

  it('without APP_KEY or JWT_SECRET there is nothing to sign with; a short key is refused', async () => {
    app.write('.env', 'APP_ENV=development\nJWT_ALGORITHM=RS256\n')
    const none = await runSvc(['config:cache'], { cwd: app.dir })
    expect(none.exitCode).toBe(1)
    expect(none.stderr).toContain('error [E_NO_KEY]')
    const weak = await runSvc(['config:cache'], { cwd: app.dir, env: { APP_KEY: 'short' } })
    expect(weak.stderr).toContain('error [E_WEAK_KEY]: APP_KEY is shorter than 32 characters')
    expect(existsSync(cacheFile())).toBe(false)
  })

  it('config:clear removes it (and says when there was none)', async () => {
    await svcJson(['config:cache'], { cwd: app.dir })
    expect(await svcJson(['config:clear'], { cwd: app.dir })).toEqual({ file: cacheFile(), action: 'removed', key_source: null })
    expect(existsSync(cacheFile())).toBe(false)
    expect((await runSvc(['config:clear'], { cwd: app.dir })).stdout).toBe('There was no configuration cache.\n')
  })
})

describe('svc env:cache', () => {
  it('writes the environment without secrets, keys, passwords, tokens, private values or URL credentials', async () => {
    writeEnv('APP_KEY=abcdefghijklmnopqrstuvwxyz0123456789\nAPI_KEY=k-123\nDATABASE_AUTH_TOKEN=t\nMAIL_PASSWORD=p\nJWT_PRIVATE_KEY=x\nTRACE_DATABASE_URL=libsql://user:hunter2@db.example.com\nAPP_URL=https://api.example.com\n')
    const result = await svcJson(['env:cache'], { cwd: app.dir })
    expect(result.left_out).toEqual(['API_KEY', 'APP_KEY', 'DATABASE_AUTH_TOKEN', 'JWT_PRIVATE_KEY', 'JWT_SECRET', 'MAIL_PASSWORD', 'TRACE_DATABASE_URL'])
    const text = readFileSync(result.file, 'utf8')
    for (const secret of [SECRET, 'k-123', 'hunter2', 'abcdefghijklmnop']) expect(text).not.toContain(secret)
    const cached = JSON.parse(text)
    expect(cached.vars).toMatchObject({ APP_ENV: 'development', TRACE_PREFIX: 'fromenv', APP_URL: 'https://api.example.com' })
    expect(cached.vars.PATH).toBeUndefined()
  })
})

describe('svc env:check', () => {
  it('a valid .env: ok, exit 0', async () => {
    const { exitCode, stdout } = await runSvc(['env:check'], { cwd: app.dir })
    expect(exitCode, stdout).toBe(0)
    expect(stdout).toContain('every setting is valid')
  })

  it('lists every problem at once, each with its fix, and exits 1', async () => {
    app.write(
      '.env',
      'APP_ENV=staging\nJWT_SECRET=too-short\nJWT_TTL=soon\nPORT=99999\nTRACE_MODE=loud\nAPP_URL=api.example.com\nDATABASE_URL=mysql://db\nJWT_SECRT=typo\nPORT=8080\nAPI_KEY=abc#def\n',
    )
    const result = await runSvc(['env:check', '--json'], { cwd: app.dir })
    expect(result.exitCode).toBe(1)
    const report = JSON.parse(result.stdout)
    const errors = report.problems.filter((problem: any) => problem.level === 'error').map((problem: any) => problem.variable)
    expect(errors).toEqual(expect.arrayContaining(['APP_ENV', 'JWT_SECRET', 'JWT_TTL', 'TRACE_MODE', 'APP_URL', 'DATABASE_URL']))
    const warnings = report.problems.filter((problem: any) => problem.level === 'warning').map((problem: any) => `${problem.variable}: ${problem.fix}`)
    expect(warnings).toContain('JWT_SECRT: did you mean JWT_SECRET?')
    expect(warnings).toContain('PORT: keep one PORT line')
    // A generated secret with a # in it, unquoted, is cut there by every .env reader.
    expect(warnings).toContain('API_KEY: quote the value: API_KEY="..."')
    expect(report).toMatchObject({ file: app.path('.env'), exists: true, ok: false })
    for (const problem of report.problems) expect(problem.fix.length).toBeGreaterThan(0)
    await expectContract('env:check', report)

    const human = await runSvc(['env:check'], { cwd: app.dir })
    expect(human.stdout).toContain('error JWT_SECRET: must be at least 32 characters')
    expect(human.stdout).toMatch(/\d+ errors, \d+ warnings in /)
  })

  it.each([['file:'], ['file:storage']])('DATABASE_URL=%s names a folder: env:check says so, and a command that opens it names the folder', async (url) => {
    app.write('.env', `APP_ENV=development\nJWT_SECRET=${SECRET}\nDATABASE_URL=${url}\n`)
    const check = await runSvc(['env:check', '--json'], { cwd: app.dir })
    expect(check.exitCode).toBe(1)
    expect(JSON.parse(check.stdout).problems).toContainEqual({
      variable: 'DATABASE_URL',
      level: 'error',
      message: `"${url}" names a folder, not a database file`,
      fix: 'file:storage/database.sqlite (a file in that folder), or empty for the default file',
    })
    const folder = url === 'file:' ? app.dir : app.path('storage')
    const status = await runSvc(['migrate:status'], { cwd: app.dir })
    expect(status.exitCode).toBe(1)
    // Was: Cannot open the database: ConnectionFailed("Unable to open connection to local database <folder>: 14")
    expect(status.stderr).toContain(`error [E_DATABASE]: Cannot open the database: ${folder} is a folder, not a database file: a file: URL names the file (file:storage/database.sqlite)\n`)
  })

  it('REDIS_URL takes redis:// and rediss:// (it was checked as a web URL: the documented default was an error); a bad one is one error', async () => {
    for (const url of ['redis://127.0.0.1:6379', 'rediss://user:pw@cache.example.com:6380/2']) {
      app.write('.env', `APP_ENV=development\nJWT_SECRET=${SECRET}\nQUEUE_CONNECTION=redis\nREDIS_URL=${url}\n`)
      const check = await runSvc(['env:check', '--json'], { cwd: app.dir })
      expect(JSON.parse(check.stdout).problems, url).toEqual([])
      expect(check.exitCode).toBe(0)
    }
    app.write('.env', `APP_ENV=development\nJWT_SECRET=${SECRET}\nREDIS_URL=https://cache.example.com\n`)
    const bad = await runSvc(['env:check', '--json'], { cwd: app.dir })
    expect(bad.exitCode).toBe(1)
    expect(JSON.parse(bad.stdout).problems.map((problem: { variable: string }) => problem.variable)).toEqual(['REDIS_URL'])
  })

  it('no .env and no settings in the environment is an error', async () => {
    rmSync(app.path('.env'))
    const { exitCode, stdout } = await runSvc(['env:check'], { cwd: app.dir })
    expect(exitCode).toBe(1)
    expect(stdout).toContain('does not exist')
  })
})

describe('svc env:switch', () => {
  it('makes .env.<env> the active .env and keeps the previous one, mode 600', async () => {
    const before = app.read('.env')
    app.write('.env.staging', `APP_ENV=production\nAPP_DEBUG=false\nJWT_SECRET=${OTHER}\n`)
    const result = await svcJson(['env:switch', 'staging'], { cwd: app.dir })
    expect(result).toEqual({ environment: 'staging', source: app.path('.env.staging'), target: app.path('.env'), backup: expect.stringMatching(/\.env\.backup-\d{8}T\d{6}Z$/) })
    expect(app.read('.env')).toBe(app.read('.env.staging'))
    expect(readFileSync(result.backup, 'utf8')).toBe(before)
    for (const file of [app.path('.env'), result.backup]) expect((statSync(file).mode & 0o777).toString(8)).toBe('600')
    rmSync(result.backup)
    rmSync(app.path('.env.staging'))
  })

  it('an environment without its file: the ones that exist are named', async () => {
    app.write('.env.testing', 'APP_ENV=test\n')
    const { exitCode, stderr } = await runSvc(['env:switch', 'prod'], { cwd: app.dir })
    expect(exitCode).toBe(1)
    expect(stderr).toContain(`error [E_NO_ENV_FILE]: ${app.path('.env.prod')} does not exist`)
    expect(stderr).toContain('environments here: testing')
    expect((await runSvc(['env:switch', '../etc'], { cwd: app.dir })).stderr).toContain('is not an environment name')
    rmSync(app.path('.env.testing'))
  })

  it('warns that a config cache still holds the previous settings', async () => {
    await svcJson(['config:cache'], { cwd: app.dir })
    app.write('.env.other', `APP_ENV=development\nJWT_SECRET=${SECRET}\n`)
    const { stderr } = await runSvc(['env:switch', 'other'], { cwd: app.dir })
    expect(stderr).toContain('A config cache exists and still holds the previous settings')
    for (const file of readdirSync(app.dir).filter((name) => name.startsWith('.env.backup') || name === '.env.other')) rmSync(join(app.dir, file))
  })
})

describe('svc optimize', () => {
  it('transpiles the modules, caches the routes and signs the config; --clear removes all three', async () => {
    const result = await svcJson(['optimize'], { cwd: app.dir })
    expect(result.action).toBe('cached')
    expect(result.caches.map((cache: any) => [cache.name, cache.done])).toEqual([['modules', true], ['routes', true], ['config', true]])
    const modules = readdirSync(app.path('storage', 'cache', 'modules'))
    expect(modules.some((file) => file.startsWith('routes-api'))).toBe(true)
    expect(modules.some((file) => file.startsWith('controllers-posts'))).toBe(true)
    expect(existsSync(app.path('storage', 'cache', 'routes.json'))).toBe(true)
    expect(existsSync(cacheFile())).toBe(true)

    // The routes still load from the module cache.
    expect((await runSvc(['route:list'], { cwd: app.dir })).exitCode).toBe(0)

    const cleared = await svcJson(['optimize', '--clear'], { cwd: app.dir })
    expect(cleared.caches.map((cache: any) => [cache.name, cache.done])).toEqual([['modules', true], ['routes', true], ['config', true]])
    expect(existsSync(app.path('storage', 'cache', 'modules'))).toBe(false)
    expect(existsSync(cacheFile())).toBe(false)
  })

  it('without a key, the config is skipped and said so', async () => {
    app.write('.env', 'APP_ENV=development\nJWT_ALGORITHM=RS256\n')
    await runSvc(['key:generate', '--rs256'], { cwd: app.dir })
    const { caches } = await svcJson(['optimize'], { cwd: app.dir })
    expect(caches.find((cache: any) => cache.name === 'config')).toMatchObject({ done: false, detail: 'skipped: no APP_KEY or JWT_SECRET to sign it with' })
    rmSync(app.path('storage', 'keys'), { recursive: true, force: true })
  })
})
