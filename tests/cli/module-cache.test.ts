/**
 * The transpile cache folder is chosen once per command (`useModuleCache`),
 * and commands run in process one after another share it: a folder removed
 * since (`optimize:clear`, another run's app copy deleted) must not make the
 * next import fail writing into it.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { importWithJiti, useModuleCache } from '../../cli/project/import-file.ts'

const dir = mkdtempSync(join(tmpdir(), 'svc-module-cache-'))
afterAll(() => {
  useModuleCache(undefined)
  rmSync(dir, { recursive: true, force: true })
})

it('imports with the default cache when the chosen cache folder was removed', async () => {
  const cache = join(dir, 'cache', 'modules')
  mkdirSync(cache, { recursive: true })
  useModuleCache(cache)
  const first = join(dir, 'first.ts')
  writeFileSync(first, 'export const first: number = 1\n')
  expect((await importWithJiti(first)).first).toBe(1)
  rmSync(cache, { recursive: true })
  const next = join(dir, 'next.ts')
  writeFileSync(next, 'export const answer: number = 42\n')
  expect((await importWithJiti(next)).answer).toBe(42)
})
