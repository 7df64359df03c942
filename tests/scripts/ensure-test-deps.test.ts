/**
 * `npm test` on a fresh machine (issue 10): scripts/ensure-test-deps.sh
 * installs what the tests need, or stops at once with one message naming
 * the command that installs it. Run here in `--check` mode (what a user
 * who is not root gets), against a Chromium and a code-server cache that
 * are not there.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { REPO_ROOT } from '../helpers/cli.ts'

const SCRIPT = join(REPO_ROOT, 'scripts', 'ensure-test-deps.sh')

function run(env: Record<string, string>) {
  return spawnSync('bash', [SCRIPT, '--check'], { env: { ...process.env, ...env }, encoding: 'utf8' })
}

describe('scripts/ensure-test-deps.sh', () => {
  it('names the apt-get command for a missing package and stops', () => {
    const result = run({ CHROMIUM_PATH: '/nonexistent/chromium' })
    expect(result.status).toBe(1)
    expect(result.stderr).toContain('npm test needs these Debian packages: chromium')
    expect(result.stderr).toContain('sudo apt-get install -y --no-install-recommends chromium')
    expect(result.stdout).toBe('')
  })

  it('names the code-server install when its cache is empty', () => {
    const empty = mkdtempSync(join(tmpdir(), 'svc-no-code-server-'))
    try {
      const result = run({ SVC_CODE_SERVER_DIR: empty, CHROMIUM_PATH: process.execPath })
      expect(result.status).toBe(1)
      expect(result.stderr).toMatch(/code-server|libkrb5-dev/)
      expect(result.stderr).toMatch(/install-code-server\.sh|apt-get install/)
    } finally {
      rmSync(empty, { recursive: true, force: true })
    }
  })

  it('runs before the tests, and CI runs the same command', () => {
    const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    expect(manifest.scripts.pretest).toBe('bash scripts/ensure-test-deps.sh')
    const ci = readFileSync(join(REPO_ROOT, '.ci', 'run'), 'utf8')
    expect(ci).toMatch(/^npm test$/m)
    expect(ci.indexOf('apt-get update')).toBeLessThan(ci.indexOf('npm test'))
  })
})
