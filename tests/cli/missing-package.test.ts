/**
 * An app whose routes import a package that is not installed (`svc new`, then
 * a command before `npm install`): E_APP_LOAD's fix says to install it, not
 * to fix the routes.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { tempDir } from '../helpers/app.ts'
import { runSvc } from '../helpers/run-svc.ts'

const app = tempDir('svc-missing-package-')
afterAll(() => app.remove())

function write(imported: string, dependencies: Record<string, string>): void {
  writeFileSync(join(app.path, 'package.json'), JSON.stringify({ name: 'fresh', private: true, type: 'module', dependencies }))
  mkdirSync(join(app.path, 'routes'), { recursive: true })
  writeFileSync(join(app.path, 'routes', 'api.ts'), `import { defineRoutes } from '${imported}'\nexport default defineRoutes(() => {})\n`)
}

describe('a package the app imports is not installed', () => {
  it('in package.json: the fix is npm install', async () => {
    write('svc-not-installed-h1', { 'svc-not-installed-h1': '^1.0.0' })
    const result = await runSvc(['route:list'], { cwd: app.path })
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toContain("error [E_APP_LOAD]: Cannot load the app: Cannot find module 'svc-not-installed-h1'")
    expect(result.stderr).toContain(`  fix: the package svc-not-installed-h1 is in package.json but not installed: run npm install in ${app.path}\n`)
  })

  it('not in package.json (a scoped package, imported by a subpath): npm install <name>, or fix the name', async () => {
    write('@h1-scope/not-installed/sub', {})
    const result = await runSvc(['route:list'], { cwd: app.path })
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toContain('  fix: the package @h1-scope/not-installed is not installed: npm install @h1-scope/not-installed (or fix the import if the name is wrong)\n')
  })
})
