/**
 * Runs the type-level tests (typed-handlers.ts: typed path parameters,
 * `c.state`, route schemas, typed database reads, read-only context fields;
 * factories.ts: a factory's attributes are the model's)
 * through the compiler, so that `npm test` fails when a wrong use stops being
 * a type error. `npm run typecheck` checks the same file with the whole project.
 */
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

const run = promisify(execFile)
const root = fileURLToPath(new URL('../..', import.meta.url))

describe('type-level tests', () => {
  it('tsc accepts the right uses and refuses every wrong one (each @ts-expect-error is used)', async () => {
    const tsc = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url))
    const result = await run(process.execPath, [tsc, '--noEmit', '-p', 'tests/types/tsconfig.json'], { cwd: root }).catch((error: { stdout: string; code: number }) => error)
    expect(result.stdout).toBe('')
  }, 120_000)
})
