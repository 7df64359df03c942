/**
 * Bundles a Worker entry as wrangler would for a Worker without
 * `nodejs_compat`: one ES module, platform browser, the `workerd`/`worker`
 * export conditions, `svc` resolved to the framework's sources. A Node
 * built-in anywhere in the graph (`node:fs`, `crypto`, ...) fails the build:
 * tests/runtimes/worker-bundle.test.ts checks the framework that way, and
 * scripts/workerd.mjs serves the bundle with Miniflare.
 *
 *   node scripts/bundle-worker.mjs examples/blog/runtimes/workers.ts out.js
 */
import { builtinModules } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const SUBPATHS = { svc: 'framework/index.ts', 'svc/workers': 'framework/workers/index.ts', 'svc/trace': 'framework/trace/index.ts' }
const BUILTINS = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]))

/** @returns {Promise<{ code: string, inputs: string[] }>} */
export async function bundleWorker(entry) {
  const result = await build({
    entryPoints: [entry],
    absWorkingDir: ROOT,
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    conditions: ['workerd', 'worker', 'browser'],
    metafile: true,
    logLevel: 'silent',
    plugins: [
      {
        name: 'svc-sources-no-node',
        setup(b) {
          b.onResolve({ filter: /^svc(\/[a-z]+)?$/ }, (args) => {
            const file = SUBPATHS[args.path]
            return file === undefined ? { errors: [{ text: `${args.path} is not for Workers` }] } : { path: join(ROOT, file) }
          })
          b.onResolve({ filter: /.*/ }, (args) =>
            BUILTINS.has(args.path) ? { errors: [{ text: `Node built-in "${args.path}" imported by ${args.importer} (Workers without nodejs_compat have none)` }] } : undefined,
          )
        },
      },
    ],
  })
  return { code: result.outputFiles[0].text, inputs: Object.keys(result.metafile.inputs) }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [entry, out] = process.argv.slice(2)
  const { code } = await bundleWorker(entry ?? 'examples/blog/runtimes/workers.ts')
  const { writeFileSync } = await import('node:fs')
  if (out) writeFileSync(out, code)
  else process.stdout.write(`${code.length} bytes\n`)
}
