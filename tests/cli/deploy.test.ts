/**
 * `svc deploy --init` writes the usual steps; `svc deploy` runs the steps in
 * order with their output, a step starting with `svc` runs svc, and the first
 * failing step stops the deploy with its exit code (later steps not run).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { copyExampleApp } from '../helpers/cli.ts'
import { runSvc, svcJson } from '../helpers/run-svc.ts'

const app = copyExampleApp()
beforeAll(() => app.write('.env', `APP_ENV=production\nAPP_DEBUG=false\nJWT_SECRET=${'dEp1oy-'.repeat(7)}\n`))
afterAll(() => app.remove())

const steps = (list: Array<{ name: string; run: string }>) => writeFileSync(app.path('deploy.json'), JSON.stringify({ steps: list }))

describe('svc deploy', () => {
  it('--init writes deploy.json with install, migrate --force, optimize, reload; not over an existing one', async () => {
    const result = await svcJson(['deploy', '--init'], { cwd: app.dir })
    expect(result.action).toBe('initialised')
    expect(result.steps.map((step: any) => `${step.name}: ${step.run}`)).toEqual([
      'install: npm install --omit=dev',
      'migrate: svc migrate --force',
      'optimize: svc optimize',
      'reload: svc serve:prod --reload',
    ])
    expect(JSON.parse(readFileSync(app.path('deploy.json'), 'utf8')).steps).toHaveLength(4)
    const again = await runSvc(['deploy', '--init'], { cwd: app.dir })
    expect(again.exitCode).toBe(1)
    expect(again.stderr).toContain('error [E_EXISTS]')
  })

  it('runs every step with its output; svc steps run svc (migrate, optimize, reload with no server)', async () => {
    steps([
      { name: 'install', run: 'echo installing dependencies' },
      { name: 'migrate', run: 'svc migrate --force' },
      { name: 'optimize', run: 'svc optimize' },
      { name: 'reload', run: 'svc serve:prod --reload' },
    ])
    const { exitCode, stdout, stderr } = await runSvc(['deploy'], { cwd: app.dir })
    expect(exitCode, stderr).toBe(0)
    expect(stdout).toContain('installing dependencies')
    expect(stdout).toMatch(/Migrated: \d+_create_posts_table/)
    expect(stdout).toContain('No production server is running')
    expect(stdout).toMatch(/✓ optimize \(\d+\.\d s\)/)
    expect(stdout.trimEnd().endsWith('Deployed.')).toBe(true)
    // Progress off a terminal: one plain line per step.
    expect(stderr).toContain('[2/4] migrate: svc migrate --force')
    expect(existsSync(app.path('storage', 'cache', 'config.json'))).toBe(true)
  })

  it('stops at the first failing step with its exit code; later steps do not run', async () => {
    steps([
      { name: 'first', run: 'echo one' },
      { name: 'check', run: 'echo the check failed >&2; exit 7' },
      { name: 'never', run: `touch ${app.path('never-ran')}` },
    ])
    const result = await runSvc(['deploy', '--json'], { cwd: app.dir })
    expect(result.exitCode).toBe(7)
    const report = JSON.parse(result.stdout)
    expect(report.action).toBe('failed')
    expect(report.steps.map((step: any) => [step.name, step.status, step.exit_code])).toEqual([
      ['first', 'ok', 0],
      ['check', 'failed', 7],
      ['never', 'skipped', null],
    ])
    // With --json, the steps' output goes to stderr: stdout stays one document.
    expect(result.stderr).toContain('the check failed')
    expect(existsSync(app.path('never-ran'))).toBe(false)

    const human = await runSvc(['deploy'], { cwd: app.dir })
    expect(human.exitCode).toBe(7)
    expect(human.stdout).toContain('✗ check (exit 7, ')
    expect(human.stdout).toContain('- never (not run)')
    expect(human.stdout).toContain('Deploy stopped: check failed with exit code 7.')
  })

  it('a missing or malformed deploy.json is a clear error; --dry-run only lists', async () => {
    writeFileSync(app.path('deploy.json'), '{ "steps": [{ "name": "x" }] }')
    const bad = await runSvc(['deploy'], { cwd: app.dir })
    expect(bad.exitCode).toBe(1)
    expect(bad.stderr).toContain('step 1 needs a "name" and a "run" command')
    steps([{ name: 'x', run: `touch ${app.path('dry')}` }])
    expect((await runSvc(['deploy', '--dry-run'], { cwd: app.dir })).stdout).toBe(`1. x: touch ${app.path('dry')}\n`)
    expect(existsSync(app.path('dry'))).toBe(false)
    // --json says that nothing ran: `deployed` there would tell a script the deploy happened.
    const listed = await runSvc(['deploy', '--dry-run', '--json'], { cwd: app.dir })
    expect(JSON.parse(listed.stdout)).toEqual({
      file: app.path('deploy.json'),
      action: 'dry_run',
      steps: [{ name: 'x', run: `touch ${app.path('dry')}`, status: 'skipped', exit_code: null, duration_ms: null }],
    })
    expect(existsSync(app.path('dry'))).toBe(false)
    const other = copyExampleApp()
    try {
      const missing = await runSvc(['deploy'], { cwd: other.dir })
      expect(missing.stderr).toContain('error [E_NO_DEPLOY_CONFIG]')
      expect(missing.stderr).toContain('svc deploy --init')
    } finally {
      other.remove()
    }
  })
})
