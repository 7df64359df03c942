/**
 * Loads the app's TypeScript files at run time with jiti (measured at about
 * 7 ms for a cached small file against about 300 ms for tsx's tsImport; see
 * docs/benchmarks.md). Tests inject the runner's own `import()` instead.
 */
import { createRequire } from 'node:module'
import { sep } from 'node:path'
import { pathToFileURL } from 'node:url'

export type ImportFile = (path: string) => Promise<Record<string, unknown>>

let jitiImporter: ImportFile | undefined

export async function importWithJiti(path: string): Promise<Record<string, unknown>> {
  if (jitiImporter === undefined) {
    const { createJiti } = await import('jiti')
    // Stacks point at the TypeScript lines (route sources, exception locations).
    process.setSourceMapsEnabled(true)
    const jiti = createJiti(import.meta.url, { sourceMaps: true, moduleCache: true })
    jitiImporter = (file) => jiti.import(file) as Promise<Record<string, unknown>>
  }
  return jitiImporter(path)
}

/** The runner's native `import()` (vitest transforms TypeScript itself). */
export const importNatively: ImportFile = (path) => import(pathToFileURL(path).href)

/**
 * Drops the app's own modules from jiti's module cache (Node's require
 * cache), so that the next import reads the files as they are now. A fresh
 * `svc` process starts empty; commands run in-process one after another
 * (tests) would otherwise see the routes of the first run. Dependencies
 * under node_modules stay cached.
 */
export function forgetAppModules(appDir: string): void {
  const cache = createRequire(import.meta.url).cache
  const prefix = appDir.endsWith(sep) ? appDir : `${appDir}${sep}`
  for (const file of Object.keys(cache)) {
    if (file.startsWith(prefix) && !file.includes(`${sep}node_modules${sep}`)) delete cache[file]
  }
}
