/**
 * The framework runs on Workers without `nodejs_compat`: the example's Worker
 * entry (svc, svc/workers, svc/trace, the app) bundles for the browser
 * platform with the workerd conditions, and no Node built-in is reached
 * (scripts/bundle-worker.mjs fails the build on one). runtimes.test.ts then
 * serves that bundle in workerd.
 */
import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { tempDir } from '../helpers/app.ts'
// @ts-expect-error: a plain .mjs script, no declarations
import { bundleWorker } from '../../scripts/bundle-worker.mjs'

const bundle = bundleWorker as (entry: string) => Promise<{ code: string; inputs: string[] }>

describe('the Worker bundle', () => {
  it('builds without Node built-ins (no nodejs_compat)', async () => {
    const { code, inputs } = await bundle('examples/blog/runtimes/workers.ts')
    expect(code).not.toMatch(/from\s*["']node:/)
    expect(inputs.some((file) => file.startsWith('framework/workers/'))).toBe(true)
    // Only the Workers adapter: no other runtime's adapter nor a libSQL driver is bundled.
    expect(inputs.filter((file) => /^framework\/(node|deno|bun)\//.test(file) || file.includes('@libsql/'))).toEqual([])
  }, 60_000)

  it('fails on a Node built-in anywhere in the graph', async () => {
    await expect(bundle('framework/node/index.ts')).rejects.toThrow(/Node built-in/)
  }, 60_000)
})

const runtimesInstalled = spawnSync('bash', ['scripts/install-runtimes.sh', '--installed']).status === 0

describe.skipIf(!runtimesInstalled && process.env.CI === undefined)('wrangler', () => {
  it('bundles the example with its wrangler.toml (no compatibility flags: no nodejs_compat)', () => {
    const dir = tempDir('svc-wrangler-')
    try {
      const run = spawnSync('bash', ['scripts/runtime.sh', 'wrangler', 'deploy', '--dry-run', '--outdir', dir.path, '-c', 'examples/blog/runtimes/wrangler.toml'], { encoding: 'utf8' })
      expect(run.status, run.stdout + run.stderr).toBe(0)
      expect(run.stdout).toMatch(/env\.DB \(svc-blog\)\s+D1 Database/)
      expect(run.stdout).toMatch(/env\.TRACES \(svc-blog-traces\)\s+D1 Database/)
      expect(readFileSync(join(dir.path, 'workers.js'), 'utf8')).not.toMatch(/from\s*["']node:/)
      expect(readFileSync('examples/blog/runtimes/wrangler.toml', 'utf8')).not.toMatch(/^compatibility_flags/m)
    } finally {
      dir.remove()
    }
  }, 60_000)
})

describe('framework/ outside its Node adapter', () => {
  it('imports no Node built-in and uses no Node global (only framework/node may)', () => {
    const offenders: string[] = []
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name)
        if (entry.isDirectory()) {
          if (path !== join('framework', 'node')) walk(path)
        } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) {
          // Code, not comments; the Deno, Bun and Workers adapters may use their runtime's globals (Bun's is `process`).
          const code = readFileSync(path, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '')
          const adapter = /^framework[\\/](deno|bun|workers)[\\/]/.test(path)
          if (/from\s+['"]node:|\brequire\(/.test(code) || (!adapter && /\bprocess\.|\bBuffer\./.test(code))) offenders.push(path)
        }
      }
    }
    walk('framework')
    expect(offenders).toEqual([])
  })
})
