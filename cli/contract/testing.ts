/**
 * The document `svc test --json` and `svc test:run --json` print: one run
 * of the app's vitest suite, for CI and the editor. Types only.
 * Compatibility rule: fields are only ever added; absent values are `null`,
 * never missing.
 *
 * | Command               | Document    |
 * |-----------------------|-------------|
 * | test --json           | TestRunJson |
 * | test:run --json       | TestRunJson |
 *
 * Paths are relative to the app folder (where vitest runs, the one with
 * `routes/`), with `/` separators; a file outside it keeps its absolute path.
 */

/** A place in a file; line and column count from 1. */
export interface TestLocationJson {
  file: string
  line: number
  column: number
}

/** An error a test (or a file, or the run) failed with. */
export interface TestErrorJson {
  /** `AssertionError`, `TypeError`; null when the thrown value had none. */
  name: string | null
  message: string
  /**
   * Where it was thrown: the first frame of the stack in the test's own file,
   * else the first outside node_modules; null when the stack names no file.
   */
  location: TestLocationJson | null
  /** A failed comparison (`toBe`, `toEqual`): the two values as vitest prints them, and their diff; null otherwise. */
  expected: string | null
  actual: string | null
  diff: string | null
  /** The stack as vitest reports it; null when there is none. */
  stack: string | null
}

/** One test (`it`/`test`). */
export interface TestCaseJson {
  /** Its own name. */
  name: string
  /** With the names of the `describe` blocks around it: `posts > creates one`. */
  full_name: string
  /** Its file. */
  file: string
  /** Where the test is declared; null when vitest did not say. */
  line: number | null
  column: number | null
  /** `skipped` also covers `.skip`, `.todo`, a `--filter` that leaves it out, and a test `--stop-on-failure` never ran. */
  status: 'passed' | 'failed' | 'skipped'
  /** How long it ran (ms); null for a skipped test. */
  duration_ms: number | null
  /** Why it failed: the first error is the failure, the others follow (`expect.soft`); empty unless `failed`. */
  errors: TestErrorJson[]
}

/** One test file. */
export interface TestFileJson {
  file: string
  /** `failed` when a test in it failed or the file itself did (see `errors`); `skipped` when none of its tests ran. */
  status: 'passed' | 'failed' | 'skipped'
  /** From collecting it to its last test (ms). */
  duration_ms: number
  /** How many tests it has (in `tests`, with `file` this one). */
  tests: number
  /** Errors outside any test: the file did not load (a syntax error, an import that threw), or a `beforeAll`/`afterAll` threw. */
  errors: TestErrorJson[]
}

/** `svc test --json`, `svc test:run --json`: one run of the app's tests. */
export interface TestRunJson {
  /** The exit code of the command (vitest's): 0 when every test ran passed and nothing else failed. */
  exit_code: number
  /** The vitest that ran: the app's own install, or svc's (the app has none). */
  vitest: { version: string; from: 'app' | 'svc' }
  totals: {
    files: number
    tests: number
    passed: number
    failed: number
    skipped: number
    /** Files that failed (a failing test, or the file itself). */
    failed_files: number
    /** The run's wall-clock time, from vitest's start to its end (ms). */
    duration_ms: number
  }
  /** In the order vitest ran them. */
  files: TestFileJson[]
  /** Every test of every file, file by file, in the order they are declared. */
  tests: TestCaseJson[]
  /** Errors vitest caught outside the tests and files (an unhandled rejection); any one fails the run. */
  unhandled_errors: TestErrorJson[]
}
