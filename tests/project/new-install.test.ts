/**
 * A new project the way a user gets it: `svc new` (with the example resource,
 * make:crud), then `npm install` with svc from a tarball of this repo
 * (`npm pack` of the built package, packed once for this file; never a
 * registry: `--svc=file:<tarball>` is what package.json's svc dependency
 * says instead of `^<version>`), then the
 * project's own `npm test`, `npm run typecheck` and `npm start` (its health
 * probe answered). Slow (an install), so one project serves every test
 * here; the install reuses npm's cache (`--prefer-offline`, no audit, no
 * fund). The steps' durations are printed at the end (docs/benchmarks.md).
 */
import { execFile, spawn } from 'node:child_process'
import { existsSync, lstatSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { NewProjectJson } from '../../cli/contract/index.ts'
import { tempDir } from '../helpers/app.ts'
import { assertBuilt, REPO_ROOT, svcEnv } from '../helpers/cli.ts'
import { svcJson } from '../helpers/run-svc.ts'

const run = promisify(execFile)
const version = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version
const work = tempDir('svc-install-')
const timings: Record<string, number> = {}
let project: string

/** The environment of a user's shell: no settings of svc's own, none of the outer npm test or vitest run. */
function userEnv(): NodeJS.ProcessEnv {
  const env = svcEnv()
  for (const name of Object.keys(env)) {
    if (/^(VITEST|TEST$|NODE_ENV$|NODE_OPTIONS$|npm_lifecycle_|npm_package_)/.test(name)) delete env[name]
  }
  return env as NodeJS.ProcessEnv
}

async function timed<T>(step: string, work: () => Promise<T>): Promise<T> {
  const started = performance.now()
  try {
    return await work()
  } finally {
    timings[step] = (performance.now() - started) / 1000
  }
}

async function npm(args: string[], timeout = 300_000): Promise<{ stdout: string; stderr: string }> {
  try {
    return await run('npm', args, { cwd: project, env: userEnv(), timeout, maxBuffer: 16 * 1024 * 1024 })
  } catch (error) {
    const failed = error as Error & { stdout?: string; stderr?: string }
    throw new Error(`npm ${args.join(' ')} failed: ${failed.message}\n${failed.stdout ?? ''}\n${failed.stderr ?? ''}`)
  }
}

beforeAll(async () => {
  assertBuilt()
  // The built package as npm would publish it (dist/, package.json); --ignore-scripts: `prepare` would rebuild it.
  const packed = await timed('pack', () => run('npm', ['pack', '--ignore-scripts', '--pack-destination', work.path], { cwd: REPO_ROOT, env: userEnv(), timeout: 120_000 }))
  const tarball = join(work.path, packed.stdout.trim().split('\n').pop()!)
  expect(existsSync(tarball)).toBe(true)
  // With the example resource: make:crud's files and tests must install, type-check and pass too.
  const created = await svcJson<NewProjectJson>(['new', 'installed', '--example=Product', `--svc=file:${tarball}`], { cwd: work.path })
  project = created.path
  await timed('install', () => npm(['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error']))
}, 600_000)

afterAll(() => {
  process.stderr.write(`new project timings (s): ${Object.entries(timings).map(([step, seconds]) => `${step} ${seconds.toFixed(1)}`).join(', ')}\n`)
  work.remove()
})

describe('a new project, installed', () => {
  it('has svc from the tarball (a copy, not a link to this repo), at this version', () => {
    const pkg = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8'))
    expect(pkg.dependencies.svc).toMatch(/^file:\.\.\/svc-.*\.tgz$/)
    const installed = join(project, 'node_modules', 'svc')
    expect(lstatSync(installed).isSymbolicLink()).toBe(false)
    expect(JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')).version).toBe(version)
    expect(existsSync(join(installed, 'dist', 'cli', 'commands', 'manifest.json'))).toBe(true)
  })

  it('npm test passes: its example test and the example resource\'s (through svc/testing/project)', async () => {
    const { stdout } = await timed('npm test', () => npm(['test']))
    expect(stdout).toMatch(/Test Files\s+2 passed \(2\)/)
    expect(stdout).toMatch(/tests\/example\.test\.ts \(5 tests\)/)
    expect(stdout).not.toMatch(/failed/)
  }, 300_000)

  it('npm run typecheck passes', async () => {
    await timed('typecheck', () => npm(['run', 'typecheck']))
  }, 300_000)

  it('npm start migrates and serves: the health probe answers, database included', async () => {
    const started = performance.now()
    // Its own process group, so that stopping it stops npm's child (svc serve) too.
    const child = spawn('npm', ['start', '--', '--port', '0'], { cwd: project, env: userEnv(), detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
    try {
      const deadline = Date.now() + 120_000
      let url: string | undefined
      while ((url = /svc listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1]) === undefined) {
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`npm start did not serve:\n${output}`)
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      timings['start'] = (performance.now() - started) / 1000
      expect(output).toContain('Migrated: 20260101000100_create_users_table')
      const ready = await fetch(`${url}/health/ready`)
      expect(ready.status).toBe(200)
      const body = (await ready.json()) as { success: boolean; data: { checks: Record<string, { status: string }> } }
      expect(body.success).toBe(true)
      expect(body.data.checks.database!.status).toBe('ok')
      expect(await (await fetch(`${url}/api/v1/hello`)).json()).toEqual({ success: true, data: { message: 'Hello from installed!' } })
      // The example resource's routes are served, behind auth.
      expect((await fetch(`${url}/api/v1/products`)).status).toBe(401)
    } finally {
      process.kill(-child.pid!, 'SIGTERM')
      const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 15_000)
      await exited
      clearTimeout(timer)
    }
  }, 180_000)
})
