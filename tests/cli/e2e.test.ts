/**
 * The built binary (`node dist/cli/bin.js`), spawned as users run it: the
 * few things only a real process shows. `--version` and `list` come from
 * the build's manifest without loading a command; a user error exits 1 with
 * its code; `--json` is one document on stdout; a reader that stops early
 * (`| head -1`) ends it quietly. `serve` start and stop: serve.test.ts.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { buildManifest } from '../../cli/command/manifest.ts'
import { exampleAppAndOutside, REPO_ROOT, spawnSvc, startSvc } from '../helpers/cli.ts'
import { expectContract, runSvc } from '../helpers/run-svc.ts'

const version = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version
const example = exampleAppAndOutside('svc-e2e-')
const elsewhere = example.outside

describe('the svc binary', () => {
  it('--version prints the version alone', async () => {
    expect(await spawnSvc(['--version'], { cwd: elsewhere.path })).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: '' })
  })

  it('list prints what the in-process list prints: the built manifest is the commands\' own metadata', async () => {
    const spawned = await spawnSvc(['list', '--json'], { cwd: elsewhere.path })
    expect(spawned.code).toBe(0)
    expect(spawned.stdout).toBe((await runSvc(['list', '--json'], { cwd: elsewhere.path })).stdout)
    const built = JSON.parse(readFileSync(join(REPO_ROOT, 'dist', 'cli', 'commands', 'manifest.json'), 'utf8'))
    expect(built, 'dist/cli/commands/manifest.json is stale: npm run build').toEqual(await buildManifest())
  })

  it('a user error: exit 1, the code and the fix on stderr, nothing on stdout', async () => {
    const { code, stdout, stderr } = await spawnSvc(['migrate:rollback', '--stpe=5'], { cwd: example.app.dir })
    expect(code).toBe(1)
    expect(stdout).toBe('')
    expect(stderr).toBe('error [E_UNKNOWN_OPTION]: Unknown option --stpe for svc migrate:rollback\n  fix: did you mean --step? (svc migrate:rollback --help lists its options)\n')
  })

  it('--json: one contract document on stdout, progress on stderr', async () => {
    const { code, stdout } = await spawnSvc(['route:list', '--json'], { cwd: example.app.dir })
    expect(code).toBe(0)
    await expectContract('route:list', JSON.parse(stdout))
  })

  it('list --raw piped into a reader that stops early (| head -1) exits quietly', async () => {
    const child = startSvc(['list', '--raw'], { cwd: elsewhere.path })
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    child.stdout.destroy() // the reader went away before svc finished writing
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve))
    expect(stderr).not.toContain('EPIPE')
    expect(code).toBe(0)
  })
})
