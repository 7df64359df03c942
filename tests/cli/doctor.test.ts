/**
 * `svc doctor` on a healthy project and on a broken one: every check is
 * ok/warn/fail with a fix, the exit code is 1 on a failure, `--prod` holds
 * production to production's rules, and `--json` is the contract's document.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { nodeVersion, secretQuality } from '../../cli/project/doctor.ts'
import { copyExampleApp } from '../helpers/cli.ts'
import { expectContract, runSvc, svcJson } from '../helpers/run-svc.ts'

const GOOD_SECRET = 'xK9-mQ2_vL7.pR4~wN8+zT3*bY6^cF1%'

describe('svc doctor before the database exists', () => {
  const app = copyExampleApp()
  afterAll(() => app.remove())

  it('says so, with every migration pending, and creates neither the database nor the trace store', async () => {
    // It used to open both, so it made two empty files and called the database "reachable".
    app.write('.env', `APP_ENV=development\nJWT_SECRET=${GOOD_SECRET}\n`)
    const report = await svcJson(['doctor'], { cwd: app.dir })
    const by = Object.fromEntries(report.checks.map((check: any) => [check.name, check]))
    expect(by.database).toMatchObject({ status: 'warn', fix: 'svc migrate creates it (or check DATABASE_URL)' })
    expect(by.database.message).toMatch(/^no database yet at .*storage\/database\.sqlite$/)
    expect(by.migrations).toMatchObject({ status: 'warn', fix: 'svc migrate' })
    expect(by.migrations.message).toMatch(/^9 pending: /)
    expect(by.traces).toMatchObject({ status: 'ok' })
    expect(by.traces.message).toContain('No traces yet')
    expect(existsSync(app.path('storage', 'database.sqlite'))).toBe(false)
    expect(existsSync(app.path('storage', 'traces.sqlite'))).toBe(false)
  })
})

describe('svc doctor without storage/', () => {
  const app = copyExampleApp()
  afterAll(() => app.remove())

  it('reports the missing folder and what creates it, and does not create it', async () => {
    // The storage check used to make the folder (and write a probe file in it): a check only reads.
    app.write('.env', `APP_ENV=development\nJWT_SECRET=${GOOD_SECRET}\n`)
    rmSync(app.path('storage'), { recursive: true, force: true })
    const report = await svcJson(['doctor'], { cwd: app.dir })
    const storage = report.checks.find((check: any) => check.name === 'storage')
    expect(storage).toMatchObject({ status: 'warn', message: `${app.path('storage')} does not exist yet`, fix: 'svc serve (or svc migrate) creates it' })
    expect(existsSync(app.path('storage'))).toBe(false)
  })

  it('a file where storage/ should be is a failure saying so', async () => {
    app.write('.env', `APP_ENV=development\nJWT_SECRET=${GOOD_SECRET}\n`)
    rmSync(app.path('storage'), { recursive: true, force: true })
    writeFileSync(app.path('storage'), '')
    const result = await runSvc(['doctor'], { cwd: app.dir })
    expect(result.exitCode).toBe(1)
    expect(result.stdout).toMatch(/^fail +storage +/m)
    expect(result.stdout).toContain(`${app.path('storage')} is not a folder`)
    rmSync(app.path('storage'))
  })
})

describe('svc doctor', () => {
  const app = copyExampleApp()
  afterAll(() => app.remove())

  it('a healthy project: every check ok (development), exit 0; --json names each check', async () => {
    app.write('.env', `APP_ENV=development\nJWT_SECRET=${GOOD_SECRET}\n`)
    expect((await runSvc(['migrate'], { cwd: app.dir })).exitCode).toBe(0)
    const report = await svcJson(['doctor'], { cwd: app.dir })
    expect(report.production).toBe(false)
    expect(report.ok).toBe(true)
    expect(report.checks.map((check: any) => check.name)).toEqual(['node', 'env_file', 'secret', 'debug', 'database', 'migrations', 'storage', 'caches', 'traces', 'https', 'maintenance'])
    expect(report.checks.filter((check: any) => check.status !== 'ok')).toEqual([])
    const human = await runSvc(['doctor'], { cwd: app.dir })
    expect(human.exitCode).toBe(0)
    expect(human.stdout).toMatch(/^ok +database +reachable/m)
    expect(human.stdout).toContain('11 ok, 0 warnings, 0 failures.')
  })

  it('a production project with optimize done, migrated, debug off, https: ok with --prod', async () => {
    app.write('.env', `APP_ENV=production\nAPP_DEBUG=false\nJWT_SECRET=${GOOD_SECRET}\nAPP_URL=https://api.example.com\nTRACE_MODE=errors,slow\n`)
    expect((await runSvc(['optimize'], { cwd: app.dir })).exitCode).toBe(0)
    const report = await svcJson(['doctor', '--prod'], { cwd: app.dir })
    expect(report.checks.filter((check: any) => check.status !== 'ok')).toEqual([])
    expect(report).toMatchObject({ production: true, ok: true, summary: { fail: 0 } })
    expect((await runSvc(['optimize', '--clear'], { cwd: app.dir })).exitCode).toBe(0)
  })

  it('a broken project: each problem is found with its fix, and the exit code is 1', async () => {
    app.write('.env', `APP_ENV=production\nAPP_DEBUG=true\nJWT_SECRET=${'a'.repeat(40)}\nJWT_TTL=later\nTRACE_MODE=all\n`)
    writeFileSync(app.path('database', 'migrations', '20990101000000_add_tags.ts'), "export async function up(db) { await db.execute('create table tags (id integer)') }\n")
    mkdirSync(app.path('storage', 'cache'), { recursive: true })
    writeFileSync(app.path('storage', 'cache', 'config.json'), JSON.stringify({ version: 1, vars: { APP_DEBUG: 'true' } }))
    await svcJson(['down'], { cwd: app.dir, env: { JWT_TTL: '60' } })
    try {
      const result = await runSvc(['doctor', '--json'], { cwd: app.dir })
      expect(result.exitCode).toBe(1)
      const report = JSON.parse(result.stdout)
      await expectContract('doctor', report)
      const status = Object.fromEntries(report.checks.map((check: any) => [check.name, check]))
      expect(status.env_file).toMatchObject({ status: 'fail', fix: 'svc env:check lists each one with its fix' })
      expect(status.env_file.message).toContain('JWT_TTL')
      expect(status.secret).toMatchObject({ status: 'fail', fix: 'svc key:generate' })
      expect(status.secret.message).toContain('guessable')
      expect(status.caches).toMatchObject({ status: 'fail' })
      expect(status.caches.message).toContain('is not signed')
      expect(report.ok).toBe(false)
      for (const check of report.checks) if (check.status !== 'ok') expect(check.fix, check.name).toEqual(expect.any(String))

      // With the settings fixed, what remains is production's: debug on, a pending migration, every request traced, http.
      app.write('.env', app.read('.env').replace('JWT_TTL=later', 'JWT_TTL=600').replace(/JWT_SECRET=.*/, `JWT_SECRET=${GOOD_SECRET}`))
      rmSync(app.path('storage', 'cache', 'config.json'))
      const rerun = await runSvc(['doctor', '--json'], { cwd: app.dir })
      expect(rerun.exitCode).toBe(1)
      const fixed = JSON.parse(rerun.stdout)
      await expectContract('doctor', fixed)
      const by = Object.fromEntries(fixed.checks.map((check: any) => [check.name, check]))
      expect(fixed.production).toBe(true) // APP_ENV=production, without --prod
      expect(by.debug).toMatchObject({ status: 'fail', fix: 'APP_DEBUG=false' })
      expect(by.migrations).toMatchObject({ status: 'fail', fix: 'svc migrate --force' })
      expect(by.migrations.message).toContain('20990101000000_add_tags')
      expect(by.traces).toMatchObject({ status: 'warn' })
      expect(by.https).toMatchObject({ status: 'warn' })
      expect(by.maintenance).toMatchObject({ status: 'warn', fix: 'svc up' })

      const human = await runSvc(['doctor'], { cwd: app.dir })
      expect(human.exitCode).toBe(1)
      expect(human.stdout).toMatch(/^fail +debug +APP_DEBUG is on in production/m)
      expect(human.stdout).toContain('fix: svc migrate --force')
    } finally {
      rmSync(app.path('database', 'migrations', '20990101000000_add_tags.ts'))
      await runSvc(['up'], { cwd: app.dir })
    }
  })

  it('the database cannot be opened: that check fails, the others still run', async () => {
    app.write('.env', `APP_ENV=development\nJWT_SECRET=${GOOD_SECRET}\nDATABASE_URL=file:${app.path('no', 'such', 'dir', 'x.db')}\n`)
    writeFileSync(app.path('no'), 'a file where a folder should be')
    try {
      const result = await runSvc(['doctor', '--json'], { cwd: app.dir })
      const report = JSON.parse(result.stdout)
      const database = report.checks.find((check: any) => check.name === 'database')
      expect(database.status).toBe('fail')
      expect(database.fix).toContain('DATABASE_URL')
      expect(report.checks).toHaveLength(11)
      expect(result.exitCode).toBe(1)
    } finally {
      rmSync(app.path('no'))
    }
  })
})

describe('svc doctor and the route cache', () => {
  const app = copyExampleApp()
  afterAll(() => app.remove())

  it('an edit after route:list is no warning: an out-of-date route cache is rebuilt by whatever reads it, never served', async () => {
    app.write('.env', `APP_ENV=development\nJWT_SECRET=${GOOD_SECRET}\n`)
    expect((await runSvc(['migrate'], { cwd: app.dir })).exitCode).toBe(0)
    expect((await runSvc(['route:list', '--json'], { cwd: app.dir })).exitCode).toBe(0)
    const caches = async () => (await svcJson(['doctor'], { cwd: app.dir })).checks.find((check: any) => check.name === 'caches')
    expect(await caches()).toMatchObject({ status: 'ok', message: 'route cache fresh' })
    app.write('routes/web.ts', `${app.read('routes', 'web.ts')}\n// an edit\n`)
    expect(await caches()).toMatchObject({ status: 'ok', message: 'route cache out of date (rebuilt when next read)', fix: null })
    expect((await runSvc(['route:list', '--json'], { cwd: app.dir })).exitCode).toBe(0)
    expect(await caches()).toMatchObject({ status: 'ok', message: 'route cache fresh' })
  })
})

describe('doctor rules', () => {
  it('Node version against engines (20.19)', () => {
    expect(nodeVersion('20.19.0').status).toBe('ok')
    expect(nodeVersion('22.1.0').status).toBe('ok')
    expect(nodeVersion('20.18.9')).toMatchObject({ status: 'fail', fix: expect.stringContaining('20.19') })
    expect(nodeVersion('18.20.0').status).toBe('fail')
  })

  it('a secret: length, then variety', () => {
    expect(secretQuality('short')).toBe('short')
    expect(secretQuality('ab'.repeat(20))).toBe('weak')
    expect(secretQuality(GOOD_SECRET)).toBe('ok')
    expect(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).toContain('"node": ">=20.19"')
  })
})
