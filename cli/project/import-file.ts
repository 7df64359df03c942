/**
 * Loads the app's TypeScript files at run time with jiti (measured at about
 * 7 ms for a cached small file against about 300 ms for tsx's tsImport; see
 * docs/benchmarks.md). Tests inject the runner's own `import()` instead.
 *
 * jiti is loaded with `require`: its ESM entry imports its 190 KB CommonJS
 * bundle, which Node then scans for named exports (cjs-module-lexer) on every
 * start, several times slower (docs/benchmarks.md, "svc serve start").
 *
 * Transpiled files are cached on disk: in `<storage>/cache/modules` once
 * `svc optimize` made it (it survives a container's restart and needs no
 * writable node_modules), else in jiti's default place (the OS temp folder).
 */
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, sep } from 'node:path'
import { pathToFileURL } from 'node:url'

export type ImportFile = (path: string) => Promise<Record<string, unknown>>

interface Jiti {
  import(path: string): Promise<unknown>
}

let jiti: { instance: Jiti; cache: string | true } | undefined
let moduleCache: string | true = true

/** Where transpiled modules are cached: `dir` when it exists, else jiti's default. */
export function useModuleCache(dir: string | undefined): void {
  moduleCache = dir !== undefined && existsSync(dir) ? dir : true
}

/** `<storage>/cache/modules`: written by `svc optimize`, used by every later start. */
export function moduleCacheDir(storageDir: string): string {
  return join(storageDir, 'cache', 'modules')
}

export async function importWithJiti(path: string): Promise<Record<string, unknown>> {
  if (jiti === undefined || jiti.cache !== moduleCache) {
    const { createJiti } = createRequire(import.meta.url)('jiti') as { createJiti(id: string, options: Record<string, unknown>): Jiti }
    // Stacks point at the TypeScript lines (route sources, exception locations).
    process.setSourceMapsEnabled(true)
    jiti = { instance: createJiti(import.meta.url, { sourceMaps: true, moduleCache: true, fsCache: moduleCache }), cache: moduleCache }
  }
  return (await jiti.instance.import(path)) as Record<string, unknown>
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
