/**
 * The blog's Worker in workerd, locally, through Miniflare (which needs
 * Node >= 22: run with the installer's Node 22, see scripts/runtime.sh):
 *
 *   serve    bundles examples/blog/runtimes/workers.ts (scripts/bundle-worker.mjs,
 *            no nodejs_compat) and serves it on PORT/HOST; D1 (DB, TRACES)
 *            kept in $WORKERD_STORAGE (default storage/workerd); the vars are
 *            .env's and the environment's upper-case variables; stops on SIGINT/SIGTERM.
 *   traces   prints the stored trace records (JSON, newest first) from the TRACES
 *            D1 of that folder: what `svc log:trace --json` prints from the libSQL file.
 *
 * MINIFLARE_DIR names the Miniflare package (scripts/install-runtimes.sh).
 */
import { existsSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { bundleWorker } from './bundle-worker.mjs'

const ROOT = resolve(import.meta.dirname, '..')
const STORAGE = resolve(process.env.WORKERD_STORAGE ?? join(ROOT, 'storage/workerd'))
const COMPATIBILITY_DATE = '2025-09-01'
const D1 = { DB: 'svc-blog', TRACES: 'svc-blog-traces' }

const miniflareDir = process.env.MINIFLARE_DIR
if (!miniflareDir) throw new Error('MINIFLARE_DIR is not set: run through scripts/runtime.sh workerd')
const { Miniflare } = await import(pathToFileURL(join(miniflareDir, 'dist/src/index.js')).href)

function vars() {
  const out = {}
  const envFile = join(ROOT, '.env')
  if (existsSync(envFile)) {
    for (const line of readFileSync(envFile, 'utf8').split('\n')) {
      const match = /^\s*([A-Z][A-Z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line)
      if (match) out[match[1]] = match[2].replace(/^(['"])(.*)\1$/, '$2')
    }
  }
  for (const [name, value] of Object.entries(process.env)) if (/^[A-Z][A-Z0-9_]*$/.test(name) && value !== undefined) out[name] = value
  return out
}

const mode = process.argv[2] ?? 'serve'
if (mode === 'serve') {
  const { code } = await bundleWorker(join(ROOT, 'examples/blog/runtimes/workers.ts'))
  const host = process.env.HOST ?? '127.0.0.1'
  const port = Number(process.env.PORT ?? 8080)
  const mf = new Miniflare({
    modules: true,
    script: code,
    compatibilityDate: COMPATIBILITY_DATE,
    d1Databases: D1,
    d1Persist: join(STORAGE, 'd1'),
    bindings: vars(),
    host,
    port,
  })
  const url = await mf.ready
  console.log(`svc blog on workerd (Miniflare): ${url.href.replace(/\/$/, '')}`)
  let stopping = false
  const stop = async () => {
    if (stopping) return
    stopping = true
    await mf.dispose()
    process.exit(0)
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
} else if (mode === 'traces') {
  const { TraceStore } = await import(pathToFileURL(join(ROOT, 'dist/framework/trace/index.js')).href)
  const { d1Database } = await import(pathToFileURL(join(ROOT, 'dist/framework/workers/index.js')).href)
  const mf = new Miniflare({ modules: true, script: 'export default {}', compatibilityDate: COMPATIBILITY_DATE, d1Databases: D1, d1Persist: join(STORAGE, 'd1') })
  const store = new TraceStore(d1Database(await mf.getD1Database('TRACES')))
  await store.init()
  // Whole records (what `svc log:trace --json` prints), newest first.
  const traces = await store.records({ limit: Number(process.argv[3] ?? 1000) })
  process.stdout.write(`${JSON.stringify({ traces }, null, 2)}\n`)
  await mf.dispose()
} else {
  console.error(`usage: workerd.mjs serve|traces [limit]`)
  process.exit(2)
}
