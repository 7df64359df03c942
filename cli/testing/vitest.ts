/**
 * `svc test` and `svc test:run` run the app's vitest suite.
 *
 * - **Which vitest**: the app's own (resolved from the app folder, so a
 *   project's devDependency), else the one svc itself resolves (svc's
 *   repository, or a hoisted install). Neither: E_NO_VITEST with the install
 *   command.
 * - **Where**: in the app folder (`routes/`, `tests/`), with the app's own
 *   `vitest.config.*` (or `vite.config.*`) there; without one, svc's defaults
 *   (vitest-defaults.ts: the files under `tests/`). A config in a folder above
 *   the app is not used: vitest would otherwise find it by walking up (the
 *   example in svc's repository would run svc's own suite).
 * - **Suites** are the folders of `tests/` (`--suite=unit` runs `tests/unit/`).
 */
import { spawn, type StdioOptions } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, extname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { ArgsDef } from '../command/define.ts'
import { CliError } from '../output/cli-error.ts'
import type { CommandIO, OutputStream } from '../output/io.ts'
import type { Project } from '../project/project.ts'
import type { TestRunJson } from '../contract/testing.ts'
import type { TestRunResults } from './results-reporter.ts'

export interface Vitest {
  /** vitest's own bin script (vitest.mjs), run with node. */
  bin: string
  version: string
  /** `app`: the app's own install; `svc`: the one svc resolves. */
  from: 'app' | 'svc'
  /** The folder the package is in (its coverage provider is looked up beside it). */
  packageDir: string
}

export interface TestOptions {
  /** vitest's file filters (`posts` runs every test file whose path contains it). */
  files: string[]
  /** Test names (describe + it), a regular expression: vitest's `-t`. */
  filter: string | undefined
  /** A folder of tests/. */
  suite: string | undefined
  coverage: boolean
  /** Detailed output: one line per test. */
  verbose: boolean
  watch: boolean
  stopOnFailure: boolean
  /** Print the run as TestRunJson on stdout; vitest's own output goes to stderr. */
  json: boolean
}

/** What `test` and `test:run` both take. */
export const testArgs = {
  files: { type: 'positional', required: false, multiple: true, description: 'Only test files whose path contains one of these', valueHint: 'file' },
  filter: { type: 'string', description: 'Only tests whose name (describe and it) matches this regular expression', valueHint: 'pattern' },
  suite: { type: 'string', description: 'Only one folder of tests/ (unit, feature, ...)', valueHint: 'name' },
  coverage: { type: 'boolean', description: 'Measure code coverage (report in storage/coverage)' },
} as const satisfies ArgsDef

/** Says which vitest runs, when it is not the app's own. */
export function vitestNote(vitest: Vitest): string | undefined {
  return vitest.from === 'svc' ? `vitest ${vitest.version} (svc's: the app has none installed; npm install --save-dev vitest)` : undefined
}

const CONFIG_FILES = ['vitest.config', 'vite.config'].flatMap((name) => ['ts', 'mts', 'cts', 'js', 'mjs', 'cjs'].map((ext) => `${name}.${ext}`))
const COVERAGE_PROVIDER = '@vitest/coverage-v8'

export function findVitest(project: Project): Vitest {
  const fromApp = resolvePackage('vitest', join(project.appDir, 'package.json'))
  if (fromApp !== undefined) return { ...fromApp, from: 'app' }
  const fromSvc = resolvePackage('vitest', fileURLToPath(import.meta.url))
  if (fromSvc !== undefined) return { ...fromSvc, from: 'svc' }
  throw new CliError('E_NO_VITEST', `vitest is not installed for the app in ${project.appDir}`, { hint: 'npm install --save-dev vitest' })
}

function resolvePackage(name: string, from: string): Omit<Vitest, 'from'> | undefined {
  let manifestPath: string
  try {
    manifestPath = createRequire(from).resolve(`${name}/package.json`)
  } catch {
    return undefined
  }
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { version: string; bin?: string | Record<string, string> }
  const bin = typeof manifest.bin === 'string' ? manifest.bin : (manifest.bin?.[name] ?? 'vitest.mjs')
  return { bin: join(dirname(manifestPath), bin), version: manifest.version, packageDir: dirname(manifestPath) }
}

/** A file vitest runs by default (`*.test.ts`, `*.spec.js`...). */
const TEST_FILE = /\.(test|spec)\.[cm]?[jt]sx?$/

/**
 * The folders of the app's tests/ that hold tests, which `--suite` names: a
 * folder of helpers the tests share (tests/support) is not a suite.
 */
export function testSuites(project: Project): string[] {
  const tests = join(project.appDir, 'tests')
  if (!existsSync(tests)) return []
  return readdirSync(tests, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && holdsTests(join(tests, entry.name)))
    .map((entry) => entry.name)
    .sort()
}

function holdsTests(folder: string): boolean {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' }).some((name) => TEST_FILE.test(name))
}

/** The vitest command line for the options (after vitest's bin); `results`: add the reporter that writes what ran (results-reporter.ts). */
export function vitestArgs(project: Project, vitest: Vitest, options: TestOptions, results = false): string[] {
  const args = options.watch ? ['watch'] : ['run']
  args.push('--root', project.appDir, '--config', configFile(project))
  if (results) args.push(`--reporter=${options.verbose ? 'verbose' : 'default'}`, `--reporter=${siblingModule('results-reporter')}`)
  else if (options.verbose) args.push('--reporter=verbose')
  // Where each test is declared, for TestRunJson's line and column.
  if (options.json) args.push('--includeTaskLocation')
  if (options.stopOnFailure) args.push('--bail=1')
  if (options.filter !== undefined) args.push('--testNamePattern', options.filter)
  if (options.coverage) {
    if (resolvePackage(COVERAGE_PROVIDER, join(project.appDir, 'package.json')) === undefined && resolvePackage(COVERAGE_PROVIDER, join(vitest.packageDir, 'package.json')) === undefined) {
      throw new CliError('E_NO_COVERAGE', `--coverage needs ${COVERAGE_PROVIDER}, which is not installed`, { hint: `npm install --save-dev ${COVERAGE_PROVIDER}@${vitest.version}` })
    }
    args.push('--coverage.enabled', '--coverage.provider=v8', `--coverage.reportsDirectory=${join(project.storageDir, 'coverage')}`)
  }
  if (options.suite !== undefined) {
    const suites = testSuites(project)
    if (!suites.includes(options.suite)) {
      throw new CliError('E_BAD_OPTION', `No suite "${options.suite}": ${suites.length === 0 ? `${relative(project.root, join(project.appDir, 'tests')) || 'tests'}/ has no folders` : `the suites are ${suites.join(', ')}`}`, {
        hint: 'a suite is a folder of tests/ (tests/unit, tests/feature)',
      })
    }
    args.push(`tests/${options.suite}/`)
  }
  args.push(...options.files)
  return args
}

/** The app's own vitest config, else svc's defaults. */
export function configFile(project: Project): string {
  const own = CONFIG_FILES.map((name) => join(project.appDir, name)).find((path) => existsSync(path))
  if (own !== undefined) return own
  return siblingModule('vitest-defaults')
}

/** A module beside this one (`.ts` in the repository, `.js` built). */
function siblingModule(name: string): string {
  const here = fileURLToPath(import.meta.url)
  return join(dirname(here), `${name}${extname(here)}`)
}

/**
 * Runs vitest in the app folder with the command's environment (and `env`); resolves
 * with its exit code. On a terminal vitest gets the terminal itself (colours,
 * watch mode's keys); otherwise its output is copied to the command's IO.
 * `toStderr`: vitest's stdout goes to the command's stderr (`--json` keeps
 * stdout for its document). An abort (Ctrl-C, the test) stops it.
 */
export function runVitest(io: CommandIO, project: Project, vitest: Vitest, args: string[], env: Record<string, string> = {}, toStderr = false): Promise<number> {
  const err = descriptor(io.stderr)
  const out = toStderr ? err : descriptor(io.stdout)
  const direct = out !== undefined && err !== undefined
  const stdio: StdioOptions = direct ? ['inherit', out, err] : ['ignore', 'pipe', 'pipe']
  const child = spawn(process.execPath, [vitest.bin, ...args], { cwd: project.appDir, env: { ...io.env, ...env }, stdio })
  if (!direct) {
    const stdout = toStderr ? io.stderr : io.stdout
    child.stdout!.setEncoding('utf8').on('data', (text: string) => stdout.write(text))
    child.stderr!.setEncoding('utf8').on('data', (text: string) => io.stderr.write(text))
  }
  const stop = () => child.kill('SIGTERM')
  io.signal.addEventListener('abort', stop, { once: true })
  return new Promise((resolve, reject) => {
    child.once('error', (error) => reject(new CliError('E_VITEST', `Cannot start vitest: ${error.message}`)))
    child.once('close', (code, signal) => {
      io.signal.removeEventListener('abort', stop)
      resolve(code ?? (signal === 'SIGTERM' && io.signal.aborted ? 130 : 1))
    })
  })
}

/** The file descriptor of a real stream (the process's own), undefined for one in memory. */
function descriptor(stream: OutputStream): number | undefined {
  const fd = (stream as { fd?: unknown }).fd
  return typeof fd === 'number' ? fd : undefined
}

/** What a run of the tests ended with: vitest's exit code, and with `json` the document to print. */
export interface TestRun {
  exitCode: number
  json: TestRunJson | undefined
}

/**
 * Runs the tests (`svc test`, `svc test:run`). A --filter that matches no
 * test name is a failure: vitest skips every test and exits 0, so a mistyped
 * filter in CI passed having run nothing. With `json`, a run that ends
 * without results (vitest could not load its config, or crashed) is a
 * failure too: stdout is to hold a document, and there is none to print.
 */
export async function runTests(io: CommandIO, project: Project, vitest: Vitest, options: TestOptions): Promise<TestRun> {
  if (options.json && options.watch) {
    throw new CliError('E_BAD_OPTION', '--json prints one run, and --watch runs until stopped', { hint: 'leave out --watch (or --json)' })
  }
  const wantsResults = options.json || (options.filter !== undefined && !options.watch)
  if (!wantsResults) return { exitCode: await runVitest(io, project, vitest, vitestArgs(project, vitest, options)), json: undefined }
  const dir = mkdtempSync(join(tmpdir(), 'svc-test-'))
  try {
    const file = join(dir, 'results.json')
    const exitCode = await runVitest(io, project, vitest, vitestArgs(project, vitest, options, true), { SVC_TEST_RESULTS: file }, options.json)
    const results = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as TestRunResults) : undefined
    if (options.filter !== undefined && exitCode === 0 && results !== undefined && results.totals.passed + results.totals.failed === 0) {
      throw new CliError('E_NO_TESTS', `No test name matches --filter=${options.filter}: ${results.totals.tests} test(s), every one skipped`, {
        hint: "the filter is a regular expression matched against each test's describe and it names (vitest -t); svc test:run lists the tests with their names",
      })
    }
    if (!options.json) return { exitCode, json: undefined }
    if (results === undefined) {
      throw new CliError('E_VITEST', `vitest ${vitest.version} exited with code ${exitCode} without reporting a run`, {
        hint: 'its own output, on stderr, says why (a vitest config that does not load, a vitest older than 3)',
        exitCode: exitCode === 0 ? 1 : exitCode,
      })
    }
    return { exitCode, json: { exit_code: exitCode, vitest: { version: vitest.version, from: vitest.from }, ...results } }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
