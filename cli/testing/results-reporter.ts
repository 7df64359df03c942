/**
 * The vitest reporter svc adds beside the one that prints, for `--filter`
 * and `--json`: at the end of the run it writes what ran (files, tests, their
 * errors) to the file SVC_TEST_RESULTS names, as `TestRunResults`. vitest
 * exits 0 when a name filter skips every test, so `--filter` reads this to
 * tell; `--json` prints it (testing/vitest.ts). Loaded by vitest from its
 * path, in vitest's process, so it types the little it reads instead of
 * importing vitest's types (the app's vitest may be another version).
 */
import { writeFileSync } from 'node:fs'
import { isAbsolute, relative, sep } from 'node:path'
import { stripVTControlCharacters } from 'node:util'
import type { TestCaseJson, TestErrorJson, TestFileJson, TestLocationJson, TestRunJson } from '../contract/testing.ts'

/** What the reporter writes: the run, without what only svc knows (its exit code, which vitest). */
export type TestRunResults = Omit<TestRunJson, 'exit_code' | 'vitest'>

interface ErrorView {
  name?: unknown
  message?: unknown
  stack?: unknown
  stacks?: readonly { file: string; line: number; column: number }[]
  expected?: unknown
  actual?: unknown
  diff?: unknown
}
interface TestCaseView {
  name: string
  fullName: string
  location: { line: number; column: number } | undefined
  result(): { state: string; errors?: readonly ErrorView[] }
  diagnostic(): { duration: number } | undefined
}
interface TestModuleView {
  moduleId: string
  state(): string
  errors(): readonly ErrorView[]
  diagnostic(): { duration: number }
  children: { allTests(): Iterable<TestCaseView> }
}
interface VitestView {
  config: { root: string }
}

export default class ResultsReporter {
  private root = process.cwd()
  private startedAt = performance.now()

  onInit(vitest: VitestView): void {
    this.root = vitest.config.root
    this.startedAt = performance.now()
  }

  onTestRunEnd(modules: readonly TestModuleView[], unhandledErrors: readonly ErrorView[] = []): void {
    const file = process.env.SVC_TEST_RESULTS
    if (file === undefined) return
    const files: TestFileJson[] = []
    const tests: TestCaseJson[] = []
    for (const module of modules) {
      const path = this.path(module.moduleId)
      const own: TestCaseJson[] = []
      for (const test of module.children.allTests()) own.push(this.test(test, path, module.moduleId))
      const errors = module.errors().map((error) => this.error(error, module.moduleId))
      const failed = errors.length > 0 || module.state() === 'failed' || own.some((test) => test.status === 'failed')
      const ran = own.some((test) => test.status !== 'skipped')
      files.push({ file: path, status: failed ? 'failed' : ran ? 'passed' : 'skipped', duration_ms: round(module.diagnostic().duration), tests: own.length, errors })
      tests.push(...own)
    }
    const count = (status: TestCaseJson['status']) => tests.filter((test) => test.status === status).length
    const results: TestRunResults = {
      totals: {
        files: files.length,
        tests: tests.length,
        passed: count('passed'),
        failed: count('failed'),
        skipped: count('skipped'),
        failed_files: files.filter((entry) => entry.status === 'failed').length,
        duration_ms: round(performance.now() - this.startedAt),
      },
      files,
      tests,
      unhandled_errors: unhandledErrors.map((error) => this.error(error, undefined)),
    }
    writeFileSync(file, JSON.stringify(results))
  }

  private test(test: TestCaseView, path: string, moduleId: string): TestCaseJson {
    const result = test.result()
    // `pending` is a test the run never reached (--stop-on-failure stopped it first).
    const status = result.state === 'passed' || result.state === 'failed' ? result.state : 'skipped'
    const duration = status === 'skipped' ? undefined : test.diagnostic()?.duration
    return {
      name: test.name,
      full_name: test.fullName,
      file: path,
      line: test.location?.line ?? null,
      column: test.location?.column ?? null,
      status,
      duration_ms: duration === undefined ? null : round(duration),
      errors: status === 'failed' ? (result.errors ?? []).map((error) => this.error(error, moduleId)) : [],
    }
  }

  private error(error: ErrorView, moduleId: string | undefined): TestErrorJson {
    const frames = error.stacks ?? []
    const frame = frames.find((entry) => entry.file === moduleId) ?? frames.find((entry) => !entry.file.includes(`${sep}node_modules${sep}`) && !entry.file.includes('/node_modules/'))
    const location: TestLocationJson | null = frame === undefined ? null : { file: this.path(frame.file), line: frame.line, column: frame.column }
    return {
      name: text(error.name),
      message: text(error.message) ?? String(error),
      location,
      expected: text(error.expected),
      actual: text(error.actual),
      diff: text(error.diff),
      stack: text(error.stack),
    }
  }

  /** Relative to the app folder, with `/`; a file outside it stays absolute. */
  private path(file: string): string {
    const path = relative(this.root, file)
    if (path.startsWith('..') || isAbsolute(path)) return file
    return path.split(sep).join('/')
  }
}

/** A string without the terminal's colour codes (a diff vitest coloured); null for anything else. */
function text(value: unknown): string | null {
  return typeof value === 'string' ? stripVTControlCharacters(value) : null
}

/** Milliseconds to two decimals, as the other documents give times. */
function round(ms: number): number {
  return Math.round(ms * 100) / 100
}
