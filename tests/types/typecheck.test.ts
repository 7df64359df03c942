/**
 * Runs the type-level tests (typed-handlers.ts: typed path parameters,
 * `c.state`, route schemas, typed database reads, read-only context fields;
 * factories.ts: a factory's attributes are the model's)
 * through the compiler, so that `npm test` fails when a wrong use stops being
 * a type error. `npm run typecheck` checks the same file with the whole project.
 * The extension's project is checked whole here too (it is small, and nothing
 * else in `npm test` compiles it with its own settings).
 */
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

const run = promisify(execFile)
const root = fileURLToPath(new URL('../..', import.meta.url))
const tsc = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url))

/** What `tsc --noEmit -p <project>` prints: nothing when the project type-checks. */
async function typeErrors(project: string): Promise<string> {
  const result = await run(process.execPath, [tsc, '--noEmit', '-p', project], { cwd: root }).catch((error: { stdout: string; code: number }) => error)
  return result.stdout
}

describe('type-level tests', () => {
  it('tsc accepts the right uses and refuses every wrong one (each @ts-expect-error is used)', async () => {
    expect(await typeErrors('tests/types/tsconfig.json')).toBe('')
  }, 120_000)

  // The extension's own project (its sources, webviews, the contract and tests/extension, with Bundler resolution):
  // `npm run typecheck` checks it, and it had drifted unnoticed (ES2022 without findLast, template kinds unseen).
  it('tsc accepts the extension project', async () => {
    expect(await typeErrors('extension')).toBe('')
  }, 180_000)
})
