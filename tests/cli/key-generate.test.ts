/**
 * `svc key:generate`: a fresh JWT secret (>= 32 characters from >= 32 random
 * bytes) written into .env; `--show` only prints it.
 */
import { chmodSync, existsSync, readFileSync, rmSync, statSync } from 'node:fs'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { copyExampleApp, type AppCopy } from '../helpers/cli.ts'
import { runSvc, svcJson } from '../helpers/run-svc.ts'

let app: AppCopy
beforeAll(() => (app = copyExampleApp()))
afterAll(() => app.remove())
beforeEach(() => app.write('.env', readFileSync(app.path('.env.example'), 'utf8').replace(/^JWT_SECRET=.*$/m, 'JWT_SECRET=old-secret-old-secret-old-secret-0')))

const envFile = () => app.read('.env')
const secretIn = (text: string) => /^JWT_SECRET=(.*)$/m.exec(text)?.[1]
const svc = (...args: string[]) => runSvc(['key:generate', ...args], { cwd: app.dir })

describe('svc key:generate', () => {
  it('writes a new JWT_SECRET of at least 32 characters into .env, leaving the other lines alone', async () => {
    const before = envFile()
    const { exitCode, stdout } = await svc()
    expect(exitCode).toBe(0)
    const after = envFile()
    const secret = secretIn(after)!
    expect(secret).not.toBe(secretIn(before))
    expect(secret.length).toBeGreaterThanOrEqual(43) // 32 bytes in base64url at least
    expect(secret).toMatch(/^[A-Za-z0-9_-]+$/)
    expect(after.replace(/^JWT_SECRET=.*$/m, '')).toBe(before.replace(/^JWT_SECRET=.*$/m, ''))
    expect(after.match(/^JWT_SECRET=/gm)).toHaveLength(1)
    expect(stdout).toContain(`JWT_SECRET written to ${app.path('.env')} (${secret.length} characters)`)
  })

  it('makes an existing, world-readable .env private to its owner', async () => {
    chmodSync(app.path('.env'), 0o644)
    expect((await svc()).exitCode).toBe(0)
    expect(statSync(app.path('.env')).mode & 0o777).toBe(0o600)
  })

  it('a new secret every time', async () => {
    await svc()
    const first = secretIn(envFile())
    await svc()
    expect(secretIn(envFile())).not.toBe(first)
  })

  it('--show only prints a secret; .env is untouched', async () => {
    const before = envFile()
    const { exitCode, stdout } = await svc('--show')
    expect(exitCode).toBe(0)
    expect(stdout).toMatch(/^[A-Za-z0-9_-]{43,}\n$/)
    expect(envFile()).toBe(before)
  })

  it('--json: the written file, or with --show the key', async () => {
    expect(await svcJson(['key:generate'], { cwd: app.dir })).toEqual({ key: null, written: app.path('.env') })
    const shown = await svcJson<{ key: string; written: null }>(['key:generate', '--show'], { cwd: app.dir })
    expect(shown.written).toBeNull()
    expect(shown.key).toMatch(/^[A-Za-z0-9_-]{43,}$/)
    expect(secretIn(envFile())).not.toBe(shown.key)
  })

  it('creates .env when there is none, from .env.example as the first svc serve does, and speaks of no old key', async () => {
    rmSync(app.path('.env'))
    const { exitCode, stdout } = await svc()
    expect(exitCode).toBe(0)
    expect(existsSync(app.path('.env'))).toBe(true)
    const secret = secretIn(envFile())!
    expect(secret.length).toBeGreaterThanOrEqual(43)
    expect(statSync(app.path('.env')).mode & 0o077).toBe(0) // a new .env holding a secret is private to its owner
    // Every setting .env.example lists, as `svc serve` writes it (a .env of the key alone kept serve from writing it).
    expect(envFile()).toBe(readFileSync(app.path('.env.example'), 'utf8').replace(/^JWT_SECRET=.*$/m, `JWT_SECRET=${secret}`))
    expect(stdout).toBe(`JWT_SECRET written to ${app.path('.env')} (${secret.length} characters), in a new .env made from ${app.path('.env.example')}.\n`)
    expect((await runSvc(['env:check', '--json'], { cwd: app.dir })).exitCode).toBe(0)
  })

  it('an old secret: says tokens signed with it are now invalid; an empty one: does not', async () => {
    expect((await svc()).stdout).toContain('Tokens signed with the old key are now invalid.')
    app.write('.env', envFile().replace(/^JWT_SECRET=.*$/m, 'JWT_SECRET='))
    expect((await svc()).stdout).not.toContain('old key')
  })
})
