/**
 * The `Database` interface's one shared suite (driver-suite.ts), run against
 * every driver: libSQL on a file and in memory, and D1 in workerd through
 * Miniflare (bundled as for a Worker, run under the installer's Node 22),
 * and libSQL's web client (`@libsql/client/web`) against a local Hrana
 * stand-in (hrana-stand-in.ts: npm ships no sqld).
 */
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createClient } from '@libsql/client'
import { createClient as createWebClient } from '@libsql/client/web'
import { describe, expect, it } from 'vitest'
import { createDatabase } from 'svc'
import { tempDir } from '../helpers/app.ts'
import { openTestDatabase } from './helpers.ts'
import { startHranaStandIn } from './hrana-stand-in.ts'
import { runDriverSuite, type SuiteResult } from './driver-suite.ts'
// @ts-expect-error: a plain .mjs script, no declarations
import { bundleWorker } from '../../scripts/bundle-worker.mjs'

const failures = (results: SuiteResult[]) => results.filter((result) => result.error !== undefined)

describe('the Database suite on every driver', () => {
  it('libSQL, a local file', async () => {
    const t = await openTestDatabase()
    try {
      const results = await runDriverSuite(t.db)
      expect(results.length).toBeGreaterThan(5)
      expect(failures(results)).toEqual([])
    } finally {
      t.close()
    }
  })

  it('libSQL, in memory', async () => {
    const db = createDatabase(createClient({ url: ':memory:', intMode: 'number' }))
    try {
      expect(failures(await runDriverSuite(db))).toEqual([])
    } finally {
      db.close()
    }
  })

  it('libSQL web client, over HTTP (Hrana) to a local stand-in', async () => {
    const dir = tempDir('svc-hrana-')
    const server = await startHranaStandIn(join(dir.path, 'database.sqlite'))
    const db = createDatabase(createWebClient({ url: server.url, intMode: 'number' }))
    try {
      expect(db.interactiveTransactions).toBe(true)
      expect(failures(await runDriverSuite(db))).toEqual([])
    } finally {
      db.close()
      await server.close()
      dir.remove()
    }
  })

  const installed = spawnSync('bash', ['scripts/install-runtimes.sh', '--installed']).status === 0
  it.skipIf(!installed && process.env.CI === undefined)('D1 (Miniflare, workerd)', async () => {
    const { code } = await (bundleWorker as (entry: string) => Promise<{ code: string }>)('tests/database/d1-suite-entry.ts')
    const dir = tempDir('svc-d1-')
    try {
      const bundle = join(dir.path, 'd1-suite.mjs')
      writeFileSync(bundle, code)
      const env = spawnSync('bash', ['-c', '. "$(bash scripts/install-runtimes.sh --print)/env.sh" && echo "$NODE22" && echo "$MINIFLARE_DIR"'], { encoding: 'utf8' })
      const [node22, miniflareDir] = env.stdout.trim().split('\n')
      const run = spawnSync(node22!, ['tests/database/d1-runner.mjs', bundle], { encoding: 'utf8', env: { ...process.env, MINIFLARE_DIR: miniflareDir } })
      if (run.status !== 0) throw new Error(`d1-runner failed: ${run.stderr}`)
      const results = JSON.parse(run.stdout) as SuiteResult[]
      expect(results.length).toBeGreaterThan(5)
      expect(failures(results)).toEqual([])
    } finally {
      dir.remove()
    }
  }, 60_000)
})
