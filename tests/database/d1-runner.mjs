/**
 * Runs the shared driver suite against D1 in workerd (Miniflare): Node 22
 * with MINIFLARE_DIR set (scripts/install-runtimes.sh's env.sh). Prints the
 * results as JSON. drivers.test.ts runs it:
 *
 *   node22 tests/database/d1-runner.mjs <bundled d1-suite-entry.js>
 */
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

const { Miniflare } = await import(pathToFileURL(join(process.env.MINIFLARE_DIR, 'dist/src/index.js')).href)
const suite = await import(pathToFileURL(process.argv[2]).href)
const mf = new Miniflare({ modules: true, script: 'export default {}', compatibilityDate: '2025-09-01', d1Databases: { DB: 'driver-suite' } })
try {
  const results = await suite.run(await mf.getD1Database('DB'))
  process.stdout.write(JSON.stringify(results))
} finally {
  await mf.dispose()
}
