/**
 * `svc test` and `svc test:run` in a copy of the example, which has tests of
 * its own (tests/unit, tests/feature) and no vitest installed: svc's vitest
 * runs them, in the app folder, with svc's default config. Then with the
 * app's own vitest and coverage provider installed; a failing test; watch.
 * Last, in a project made by `svc new` (its own vitest.config.ts and tests;
 * svc and vitest linked as an install would, without one).
 */
import { existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tempDir } from '../helpers/app.ts'
import { copyExampleApp, linkRepoModules, REPO_ROOT, type AppCopy } from '../helpers/cli.ts'
import type { CliErrorJson, TestRunJson } from '../../cli/contract/index.ts'
import { expectContract, runSvc, startSvc } from '../helpers/run-svc.ts'

let app: AppCopy
beforeAll(() => {
  app = copyExampleApp()
})
afterAll(() => app?.remove())

const svc = (argv: string[]) => runSvc(argv, { cwd: app.dir })
/** Each test starts vitest (a process of its own) one to four times: minutes on a loaded machine. */
const VITEST_RUNS = { timeout: 240_000 }
/** `Tests  6 passed (6)` -> { passed: 6, failed: 0, skipped: 0 } */
function counts(output: string): { passed: number; failed: number; skipped: number } {
  const line = output.split('\n').find((text) => /^\s*Tests\s/.test(text)) ?? ''
  const count = (word: string) => Number(new RegExp(`(\\d+) ${word}`).exec(line)?.[1] ?? 0)
  return { passed: count('passed'), failed: count('failed'), skipped: count('skipped') }
}

describe('svc test', () => {
  it("runs the app's tests with svc's vitest when the app has none, and says so", VITEST_RUNS, async () => {
    const result = await svc(['test'])
    expect(result.exitCode, result.stdout + result.stderr).toBe(0)
    expect(result.stderr).toMatch(/^vitest \d+\.\d+\.\d+ \(svc's: the app has none installed; npm install --save-dev vitest\)$/m)
    expect(result.stdout).toContain('tests/unit/post-input.test.ts')
    expect(result.stdout).toContain('tests/feature/routes.test.ts')
    expect(counts(result.stdout)).toMatchObject({ passed: 30, failed: 0 })
    expect(result.stdout).toContain(`RUN  v`) // vitest's banner names the app folder as its root
    expect(result.stdout).toContain(app.dir)
  })

  it('--suite runs one folder of tests/, --filter matches test names, words match file paths', VITEST_RUNS, async () => {
    const unit = await svc(['test', '--suite=unit'])
    expect(unit.stdout).toContain('tests/unit/post-input.test.ts')
    expect(unit.stdout).not.toContain('tests/feature/')

    const filtered = await svc(['test', '--filter=^ListQuery'])
    expect(counts(filtered.stdout)).toMatchObject({ passed: 1, failed: 0 })

    // A filter no test name matches: vitest skips every test and exits 0; svc says so and fails (a typo in CI ran nothing).
    const none = await svc(['test', '--filter=^NoSuchTest'])
    expect(counts(none.stdout)).toMatchObject({ passed: 0, failed: 0, skipped: 30 })
    expect(none.exitCode).toBe(1)
    expect(none.stderr).toContain('error [E_NO_TESTS]: No test name matches --filter=^NoSuchTest: 30 test(s), every one skipped')

    const files = await svc(['test', 'routes'])
    expect(files.stdout).toContain('tests/feature/routes.test.ts')
    expect(files.stdout).not.toContain('tests/unit/')

    const unknown = await svc(['test', '--suite=integration'])
    expect(unknown.exitCode).toBe(1)
    expect(unknown.stderr).toContain('error [E_BAD_OPTION]: No suite "integration": the suites are feature, unit')
  })

  it('a failing test fails the command; test:run shows every test and --stop-on-failure stops at the first failure', VITEST_RUNS, async () => {
    // In a suite of their own, so that no other test meets them.
    app.write('tests/failing/broken.test.ts', `import { it, expect } from 'vitest'\nit('first broken', () => expect(1).toBe(2))\nit('second broken', () => expect(1).toBe(3))\n`)
    app.write('tests/failing/fine.test.ts', `import { it, expect } from 'vitest'\nit('fine', () => expect(1).toBe(1))\n`)
    try {
      const failed = await svc(['test', '--suite=failing'])
      expect(failed.exitCode).toBe(1)
      expect(counts(failed.stdout)).toMatchObject({ failed: 2, passed: 1 })

      const detailed = await svc(['test:run', '--suite=failing'])
      expect(detailed.exitCode).toBe(1)
      // One line per test, passed ones too (the default reporter shows only files).
      expect(detailed.stdout).toMatch(/✓ .*fine/)
      expect(detailed.stdout).toMatch(/× .*first broken/)

      const stopped = await svc(['test:run', '--suite=failing', '--stop-on-failure', 'broken'])
      expect(stopped.exitCode).toBe(1)
      expect(counts(stopped.stdout).failed).toBe(1)
      expect(stopped.stdout).toMatch(/× .*first broken/)
      expect(stopped.stdout).not.toMatch(/× .*second broken/) // never ran
    } finally {
      rmSync(app.path('tests', 'failing'), { recursive: true, force: true })
    }
  })

  it("--coverage with the app's own vitest and coverage provider writes the report to storage/coverage", VITEST_RUNS, async () => {
    const modules = app.path('node_modules')
    for (const name of ['vitest', '@vitest/coverage-v8']) {
      mkdirSync(join(modules, name, '..'), { recursive: true })
      symlinkSync(join(REPO_ROOT, 'node_modules', name), join(modules, name), 'dir')
    }
    try {
      const result = await svc(['test', '--coverage', '--suite=unit'])
      expect(result.exitCode, result.stdout + result.stderr).toBe(0)
      expect(result.stderr).not.toContain("svc's") // the app's own vitest
      expect(result.stdout).toMatch(/Coverage report from v8/)
      expect(result.stdout).toMatch(/posts\.ts\s+\|/)
      expect(existsSync(app.path('storage', 'coverage', 'coverage-final.json'))).toBe(true)
    } finally {
      for (const name of ['vitest', '@vitest/coverage-v8']) rmSync(join(modules, name), { force: true })
    }
  })

  it('test:run --watch runs again when a test changes, until stopped', VITEST_RUNS, async () => {
    const watching = startSvc(['test:run', '--watch', '--suite=unit'], { cwd: app.dir })
    try {
      await watching.waitFor(/Tests\s+3 passed/, 60_000)
      app.write('tests/unit/added.test.ts', `import { it, expect } from 'vitest'\nit('added while watching', () => expect(2).toBe(2))\n`)
      await watching.waitFor(/added while watching/, 60_000)
    } finally {
      const stopped = await watching.stop()
      rmSync(app.path('tests', 'unit', 'added.test.ts'), { force: true })
      expect(stopped.exitCode).not.toBe(0) // stopped, not finished: vitest was ended
    }
  })
})

describe('svc test --json', () => {
  /** The document on stdout, which must be all of stdout; checked against the contract (TestRunJson). */
  async function document(command: string, result: { stdout: string }): Promise<TestRunJson> {
    const run = JSON.parse(result.stdout) as TestRunJson
    await expectContract(command, run)
    return run
  }

  it('prints the run as one TestRunJson on stdout (vitest on stderr), and exits as vitest does', VITEST_RUNS, async () => {
    app.write('tests/json/passing.test.ts', `import { it, expect } from 'vitest'\nit('adds', () => expect(1 + 1).toBe(2))\n`)
    app.write(
      'tests/json/failing.test.ts',
      `import { describe, it, expect } from 'vitest'\ndescribe('posts', () => {\n  it('keeps the title', () => expect({ title: 'a' }).toEqual({ title: 'b' }))\n  it.skip('later', () => {})\n})\n`,
    )
    try {
      const failed = await svc(['test', '--suite=json', '--json'])
      expect(failed.exitCode).toBe(1)
      const run = await document('test', failed)
      expect(run.exit_code).toBe(1)
      // `from` is left out: it depends on what this file's other tests installed in the app (and Node's resolution cache).
      expect(run.vitest.version).toMatch(/^\d+\.\d+\.\d+/)
      expect(run.totals).toMatchObject({ files: 2, tests: 3, passed: 1, failed: 1, skipped: 1, failed_files: 1 })
      expect(run.files.map((file) => [file.file, file.status, file.tests]).sort()).toEqual([
        ['tests/json/failing.test.ts', 'failed', 2],
        ['tests/json/passing.test.ts', 'passed', 1],
      ])
      const byName = new Map(run.tests.map((test) => [test.full_name, test]))
      expect(byName.get('adds')).toMatchObject({ name: 'adds', file: 'tests/json/passing.test.ts', status: 'passed', line: 2, errors: [] })
      expect(byName.get('adds')!.duration_ms).toBeGreaterThanOrEqual(0)
      expect(byName.get('posts > later')).toMatchObject({ status: 'skipped', duration_ms: null, errors: [] })
      const broken = byName.get('posts > keeps the title')!
      expect(broken).toMatchObject({ name: 'keeps the title', file: 'tests/json/failing.test.ts', status: 'failed', line: 3, column: 3 })
      expect(broken.errors).toHaveLength(1)
      expect(broken.errors[0]).toMatchObject({
        name: 'AssertionError',
        message: "expected { title: 'a' } to deeply equal { title: 'b' }",
        location: { file: 'tests/json/failing.test.ts', line: 3 },
      })
      expect(broken.errors[0]!.diff).toContain('-   "title": "b",')
      expect(run.unhandled_errors).toEqual([])
      // vitest's own report went to stderr, for the person or the CI log.
      expect(failed.stderr).toContain('tests/json/failing.test.ts')

      const passed = await svc(['test', 'json/passing', '--json'])
      expect(passed.exitCode, passed.stderr).toBe(0)
      expect((await document('test', passed)).totals).toMatchObject({ tests: 1, passed: 1, failed: 0 })

      // test:run prints the same document; --stop-on-failure is vitest's --bail.
      const detailed = await svc(['test:run', 'json/failing', '--json', '--stop-on-failure'])
      expect(detailed.exitCode).toBe(1)
      expect((await document('test:run', detailed)).totals).toMatchObject({ tests: 2, failed: 1 })

      // A filter no test name matches is still E_NO_TESTS, as the error document.
      const none = await svc(['test', '--suite=json', '--filter=^NoSuchTest', '--json'])
      expect(none.exitCode).toBe(1)
      expect((JSON.parse(none.stdout) as CliErrorJson).error).toMatchObject({ code: 'E_NO_TESTS', exit_code: 1 })
    } finally {
      rmSync(app.path('tests', 'json'), { recursive: true, force: true })
    }
  })

  it('refuses --watch with --json: a document is one run', async () => {
    const watching = await svc(['test:run', '--watch', '--json'])
    expect(watching.exitCode).toBe(1)
    expect((JSON.parse(watching.stdout) as CliErrorJson).error.code).toBe('E_BAD_OPTION')
  })
})

describe('svc test in a project made by svc new', () => {
  it("runs the project's tests with the project's vitest.config.ts; test:run lists each", VITEST_RUNS, async () => {
    const work = tempDir('svc-new-test-')
    try {
      expect((await runSvc(['new', 'demo'], { cwd: work.path })).exitCode).toBe(0)
      const project = join(work.path, 'demo')
      // As `npm install` would: svc and its dependencies, and the project's devDependency vitest (its config imports vitest/config).
      linkRepoModules(project)
      symlinkSync(join(REPO_ROOT, 'node_modules', 'vitest'), join(project, 'node_modules', 'vitest'), 'dir')
      const result = await runSvc(['test'], { cwd: project })
      expect(result.exitCode, result.stdout + result.stderr).toBe(0)
      expect(result.stderr).not.toContain("svc's") // the project's own vitest
      expect(result.stdout).toContain('tests/example.test.ts')
      expect(counts(result.stdout)).toMatchObject({ failed: 0, passed: 5 })

      const detailed = await runSvc(['test:run', 'example'], { cwd: project })
      expect(detailed.exitCode, detailed.stdout + detailed.stderr).toBe(0)
      expect(detailed.stdout.match(/✓ /g)?.length ?? 0).toBeGreaterThanOrEqual(5)
    } finally {
      work.remove()
    }
  })
})
