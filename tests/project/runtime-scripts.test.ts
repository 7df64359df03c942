/**
 * The Deno, Bun and Workers scripts of a project made by `svc new`, run with
 * npm as its developer runs them, where the runtime is missing and on a
 * fresh clone (no `.env`). Before: `sh: 1: deno: not found` (nothing said
 * what to install), and Deno and Bun stopped on a ConfigError naming
 * `svc key:generate` where `npm start` makes `.env` itself. Now the scripts'
 * first step, `svc runtime:prepare`, says what to install and exits 1, and
 * makes `.env` as `npm start` does. The runtimes themselves are stand-ins
 * here (a script named deno, bun, wrangler); tests/runtimes/new-project.test.ts
 * runs the real ones.
 */
import { spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { delimiter, dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { findCommand } from '../../cli/project/find-command.ts'
import { tempDir } from '../helpers/app.ts'
import { linkRepoModules, SVC_BIN } from '../helpers/cli.ts'
import { runSvc } from '../helpers/run-svc.ts'

const sandbox = tempDir('svc-runtime-scripts-')
const project = join(sandbox.path, 'demo')
const fakeBin = join(sandbox.path, 'fake-bin')
/** A PATH with node, npm and sh, and no deno, bun or wrangler. */
const bare = [dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(delimiter)
afterAll(() => sandbox.remove())

beforeAll(async () => {
  expect((await runSvc(['new', 'demo'], { cwd: sandbox.path })).exitCode).toBe(0)
  // What `npm install` gives it, without the network: svc (this checkout) and the `svc` command.
  linkRepoModules(project)
  mkdirSync(join(project, 'node_modules/.bin'), { recursive: true })
  writeExecutable(join(project, 'node_modules/.bin/svc'), `#!/bin/sh\nexec "${process.execPath}" "${SVC_BIN}" "$@"\n`)
  // Stand-ins for the runtimes: each says how it was called and exits 0.
  for (const name of ['deno', 'bun', 'wrangler']) writeExecutable(join(fakeBin, name), `#!/bin/sh\necho "${name} ran: $*"\n`)
})

function writeExecutable(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, text)
  chmodSync(path, 0o755)
}

function npmRun(script: string, PATH: string, env: Record<string, string> = {}) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('npm_') && !['APP_ENV', 'JWT_SECRET'].includes(name)))
  const run = spawnSync('npm', ['run', '--silent', script], { cwd: project, env: { ...clean, NO_COLOR: '1', ...env, PATH }, encoding: 'utf8' })
  return { status: run.status, stdout: run.stdout, stderr: run.stderr }
}

describe.skipIf(['deno', 'bun', 'wrangler'].some((name) => findCommand(name, { PATH: bare }) !== undefined))('a runtime script where the runtime is not installed', () => {
  it.each([
    ['start:deno', 'Deno is not installed', 'npm install -D deno'],
    ['start:bun', 'Bun is not installed', 'npm install -D bun'],
    ['dev:workers', 'wrangler (Cloudflare Workers) is not installed', 'npm install -D wrangler'],
    ['deploy:workers', 'wrangler (Cloudflare Workers) is not installed', 'npm install -D wrangler'],
  ])('%s says what to install and exits 1, not the shell\'s "not found"', (script, message, fix) => {
    const run = npmRun(script, bare)
    expect(run.status).toBe(1)
    expect(run.stderr).toContain(`error [E_RUNTIME_MISSING]: ${message}`)
    expect(run.stderr).toContain(`fix: ${fix}`)
    expect(run.stderr).not.toMatch(/not found/)
  })
})

describe('a runtime script on a fresh clone (no .env)', () => {
  it.each(['start:deno', 'start:bun'])('%s makes .env as npm start does: a fresh JWT_SECRET, mode 600, said on stderr', (script) => {
    rmSync(join(project, '.env'), { force: true })
    const run = npmRun(script, `${fakeBin}${delimiter}${bare}`)
    expect(run.status, run.stderr).toBe(0)
    expect(run.stdout).toMatch(new RegExp(`^${script === 'start:deno' ? 'deno ran: run --env-file=.env' : 'bun ran: run runtimes/bun.ts'}`, 'm'))
    expect(run.stderr).toContain(`Created ${join(project, '.env')} with a fresh JWT_SECRET (development settings).`)
    const secret = /^JWT_SECRET=(.*)$/m.exec(readFileSync(join(project, '.env'), 'utf8'))?.[1] ?? ''
    expect(secret.length).toBeGreaterThanOrEqual(32)
    expect(statSync(join(project, '.env')).mode & 0o777).toBe(0o600)
    // Once made, it is kept as it is.
    const again = npmRun(script, `${fakeBin}${delimiter}${bare}`)
    expect(again.stderr).not.toContain('Created')
    expect(readFileSync(join(project, '.env'), 'utf8')).toContain(`JWT_SECRET=${secret}`)
  })

  it('not in production (APP_ENV=production), as svc serve; nor for the Worker, which reads .dev.vars', () => {
    rmSync(join(project, '.env'), { force: true })
    expect(npmRun('start:bun', `${fakeBin}${delimiter}${bare}`, { APP_ENV: 'production' }).status).toBe(0)
    expect(existsSync(join(project, '.env'))).toBe(false)
    const worker = npmRun('dev:workers', `${fakeBin}${delimiter}${bare}`)
    expect(worker.status, worker.stderr).toBe(0)
    expect(worker.stdout).toMatch(/^wrangler ran: dev$/m)
    expect(existsSync(join(project, '.env'))).toBe(false)
  })
})
