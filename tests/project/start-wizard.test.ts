/**
 * `svc start` as a person uses it: the built binary in a real terminal
 * (tmux), answering the wizard's questions with keys, a typo included, and
 * cancelling it with Ctrl-C. Each test runs its own tmux server (its own
 * socket), stopped at the end.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { tempDir } from '../helpers/app.ts'
import { assertBuilt, SVC_BIN } from '../helpers/cli.ts'

const sandbox = tempDir('svc-wizard-')
const socket = `svc-wizard-${process.pid}`
beforeAll(() => {
  assertBuilt()
  try {
    execFileSync('tmux', ['-V'])
  } catch {
    throw new Error('tmux is missing: apt-get install -y tmux (.ci/run does)')
  }
})
afterEach(() => {
  try {
    tmux('kill-server')
  } catch {
    // already gone
  }
  // A killed server leaves its socket file behind.
  rmSync(join(process.env.TMUX_TMPDIR ?? '/tmp', `tmux-${process.getuid!()}`, socket), { force: true })
})
afterAll(() => sandbox.remove())

function tmux(...args: string[]): string {
  return execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' })
}

/** Runs `svc start` in a fresh 100x40 terminal; its exit code lands in exit.txt. */
function startWizard(): void {
  rmSync(join(sandbox.path, 'exit.txt'), { force: true })
  const command = `'${process.execPath}' '${SVC_BIN}' start; echo $? > exit.txt; sleep 600`
  execFileSync('tmux', ['-L', socket, '-f', '/dev/null', 'new-session', '-d', '-s', 'wizard', '-x', '100', '-y', '40', '-c', sandbox.path, command], {
    env: { ...process.env, NO_COLOR: '1', TERM: 'xterm-256color' },
  })
}

const screen = () => tmux('capture-pane', '-p', '-t', 'wizard')
const keys = (...sequence: string[]) => tmux('send-keys', '-t', 'wizard', ...sequence)

/** Polls the screen until `pattern` shows (the machine may be busy: readiness by condition, not by sleeping). */
async function until(pattern: RegExp, timeoutMs = 30_000): Promise<string> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const text = screen()
    if (pattern.test(text)) return text
    if (Date.now() > deadline) throw new Error(`the screen never showed ${pattern}:\n${text}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

async function exitCode(): Promise<number> {
  const file = join(sandbox.path, 'exit.txt')
  const deadline = Date.now() + 30_000
  while (!existsSync(file) || readFileSync(file, 'utf8').trim() === '') {
    if (Date.now() > deadline) throw new Error(`svc start did not finish:\n${screen()}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return Number(readFileSync(file, 'utf8').trim())
}

describe('svc start in a terminal', () => {
  it('asks name (refusing a bad one), database, JWT algorithm, example resource, then creates the project and says what next', async () => {
    startWizard()
    await until(/Project name/)
    keys('My App', 'Enter')
    await until(/"My App" cannot be a package name.*\(my-app can\)/s)
    keys(...Array<string>(6).fill('BSpace'), 'wizard-app', 'Enter')
    await until(/Database URL/)
    keys('Enter') // the default: the embedded file
    await until(/JWT signing algorithm[\s\S]*RS256/)
    keys('Down', 'Enter')
    await until(/example resource/)
    keys('Enter') // yes
    await until(/Its name/)
    keys('Enter') // Post
    const done = await until(/wizard-app is ready in/)
    expect(done).toContain('cd wizard-app')
    expect(done).toContain('npm install')
    expect(await exitCode()).toBe(0)

    const dir = join(sandbox.path, 'wizard-app')
    const env = readFileSync(join(dir, '.env'), 'utf8')
    expect(env).toMatch(/^JWT_ALGORITHM=RS256$/m)
    expect(env).toMatch(/^DATABASE_URL=$/m)
    expect(readdirSync(join(dir, 'storage', 'keys')).sort()).toEqual(['jwt-private.pem', 'jwt-public.pem'])
    expect(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).name).toBe('wizard-app')
    expect(readFileSync(join(dir, 'routes', 'api.ts'), 'utf8')).toContain("'/posts'")
  }, 120_000)

  it('Ctrl-C cancels: exit 130, nothing created', async () => {
    startWizard()
    await until(/Project name/)
    keys('half-made', 'Enter')
    await until(/Database URL/)
    keys('C-c')
    await until(/Cancelled: nothing was created/)
    expect(await exitCode()).toBe(130)
    expect(existsSync(join(sandbox.path, 'half-made'))).toBe(false)
  }, 120_000)
})
