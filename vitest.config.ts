import { availableParallelism } from 'node:os'
import { fileURLToPath } from 'node:url'
import { configDefaults, defineConfig } from 'vitest/config'

const TEST_FILES = ['framework/**/*.test.ts', 'cli/**/*.test.ts', 'tests/**/*.test.ts', 'examples/**/*.test.ts']

/** Test files that replace a module with vi.mock. */
const MOCKS_MODULES = ['tests/extension/traces-source.test.ts']

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url))

export default defineConfig({
  resolve: {
    // Tests run the sources; the spawned `svc` binary runs dist/ (built by `npm test`).
    alias: [
      { find: /^svc$/, replacement: source('./framework/index.ts') },
      { find: /^svc\/node$/, replacement: source('./framework/node/index.ts') },
      { find: /^svc\/deno$/, replacement: source('./framework/deno/index.ts') },
      { find: /^svc\/bun$/, replacement: source('./framework/bun/index.ts') },
      { find: /^svc\/workers$/, replacement: source('./framework/workers/index.ts') },
      { find: /^svc\/testing$/, replacement: source('./framework/testing/index.ts') },
      { find: /^svc\/trace$/, replacement: source('./framework/trace/index.ts') },
      { find: /^svc\/regression$/, replacement: source('./cli/trace/regression-api.ts') },
      { find: /^svc\/testing\/project$/, replacement: source('./cli/testing/project-app.ts') },
      { find: /^svc\/generators$/, replacement: source('./cli/generators/index.ts') },
    ],
  },
  test: {
    // Room for a file slowed by the others running beside it; a hang still ends the test.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Most files wait on programs they start (the CLI, servers, code-server, Redis, other runtimes), not on
    // the CPU: on 2 CPUs the suite needed about one CPU on average with two workers, and left a quarter of
    // the CPUs idle with three, so a worker per CPU and one more (docs/benchmarks.md, "The test suite's wall time").
    maxWorkers: availableParallelism() + 1,
    // In-process CLI runs collect closed libsql databases (tests/helpers/run-svc.ts).
    execArgv: ['--expose-gc'],
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: TEST_FILES,
          exclude: [...configDefaults.exclude, ...MOCKS_MODULES],
          // A worker runs its files one after another in one process, importing framework/ and cli/ once, not once
          // a file: 120 s of imports in a run of the suite became 22 s (docs/benchmarks.md, "The test suite's wall
          // time"). Files share no state but what they create: none sets globals or process.env for good.
          isolate: false,
        },
      },
      // A file that replaces a module (vi.mock) gets a process of its own, so that no other file sees the stand-in.
      { extends: true, test: { name: 'isolated', include: [...MOCKS_MODULES] } },
    ],
  },
})
