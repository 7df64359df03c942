/**
 * Where svc finds the app, and what it says where there is none: how to
 * begin (`svc new`, routes/api.ts), or where the enclosing app is; `make:*`
 * in a folder that has only a package.json; a package that depends on svc
 * is an app before its first route.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { MakeMigrationsJson, RouteListJson } from '../../cli/contract/index.ts'
import { exampleAppAndOutside } from '../helpers/cli.ts'
import { runSvc, svcJson } from '../helpers/run-svc.ts'

const example = exampleAppAndOutside('svc-outside-')
const sandbox = example.outside

function folder(name: string, packageJson?: object): string {
  const dir = join(sandbox.path, name)
  mkdirSync(dir, { recursive: true })
  if (packageJson !== undefined) writeFileSync(join(dir, 'package.json'), JSON.stringify(packageJson))
  return dir
}

describe('outside any app', () => {
  it('an empty folder: E_NO_APP saying how to begin (svc new, svc start, routes/api.ts, --cwd)', async () => {
    const { exitCode, stdout, stderr } = await runSvc(['migrate'], { cwd: folder('empty') })
    expect(exitCode).toBe(1)
    expect(stdout).toBe('')
    expect(stderr).toContain(`error [E_NO_APP]: No svc app in ${join(sandbox.path, 'empty')}: neither routes/api.ts nor routes/web.ts exists`)
    expect(stderr).toContain('fix: start a project with `svc new <name>` (or the wizard, `svc start`); or create routes/api.ts here')
    expect(stderr).toContain('--cwd <dir>')
  })

  it('inside an app\'s subfolder: names the app and the --cwd that reaches it', async () => {
    const { exitCode, stderr } = await runSvc(['route:list'], { cwd: example.app.path('app', 'controllers') })
    expect(exitCode).toBe(1)
    expect(stderr).toContain(`error [E_NO_APP]: No svc app in ${example.app.path('app', 'controllers')}: it is inside the app ${example.app.dir}`)
    expect(stderr).toContain(`fix: run svc in ${example.app.dir}, or pass --cwd ../..`)
    expect((await runSvc(['route:list', '--cwd', '../..'], { cwd: example.app.path('app', 'controllers') })).exitCode).toBe(0)
  })

  it('a package.json naming an app folder that has no routes says so', async () => {
    const { stderr } = await runSvc(['route:list'], { cwd: folder('misnamed', { name: 'misnamed', svc: { app: 'server' } }) })
    expect(stderr).toContain('(named by "svc.app" in')
    expect(stderr).toContain('fix "svc": { "app": "<dir>" } in package.json')
  })

  it('the overview starts with new and start', async () => {
    const { stdout } = await runSvc([], { cwd: folder('empty') })
    expect(stdout).toMatch(/Common commands:\n {2}new {3,}Scaffold a new project folder.*\n {2}start {3,}Interactive onboarding/)
  })
})

describe('a folder with only a package.json', () => {
  it('make:* writes there (the app starts in that folder); other commands still want an app', async () => {
    const dir = folder('plain', { name: 'plain', private: true })
    const made = await svcJson<MakeMigrationsJson>(['make:auth'], { cwd: dir })
    expect(made.written).toHaveLength(5)
    expect(readdirSync(join(dir, 'database', 'migrations'))).toHaveLength(5)
    expect((await runSvc(['make:apikey-table'], { cwd: dir })).exitCode).toBe(0)
    const { exitCode, stderr } = await runSvc(['route:list'], { cwd: dir })
    expect(exitCode).toBe(1)
    expect(stderr).toContain('E_NO_APP')
    expect(existsSync(join(dir, 'storage'))).toBe(false)
  })

  it('that depends on svc is an app before its first route: the built-in auth and health routes', async () => {
    const dir = folder('fresh', { name: 'fresh', private: true, type: 'module', dependencies: { svc: '^0.1.0' } })
    const { routes } = await svcJson<RouteListJson>(['route:list'], { cwd: dir })
    expect(routes.map((route) => `${route.method} ${route.path}`)).toEqual(expect.arrayContaining(['GET /health/ready', 'POST /api/auth/login']))
    expect(routes.every((route) => route.source === null)).toBe(true)
  })

  it('a malformed package.json is E_BAD_PACKAGE_JSON, not a crash', async () => {
    const dir = folder('broken')
    writeFileSync(join(dir, 'package.json'), '{ "name": ')
    const { exitCode, stderr } = await runSvc(['make:auth'], { cwd: dir })
    expect(exitCode).toBe(1)
    expect(stderr).toContain('error [E_BAD_PACKAGE_JSON]')
    writeFileSync(join(dir, 'package.json'), '[]')
    expect((await runSvc(['make:auth'], { cwd: dir })).stderr).toContain('not a JSON object')
  })
})
