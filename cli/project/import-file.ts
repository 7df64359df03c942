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
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, sep } from 'node:path'
import { pathToFileURL } from 'node:url'

export type ImportFile = (path: string) => Promise<Record<string, unknown>>

interface Jiti {
  import(path: string): Promise<unknown>
  transform(options: { source: string; filename?: string; ts?: boolean; async?: boolean }): string
}

let jiti: { instance: Jiti; cache: string | true } | undefined
let moduleCache: string | true = true

function currentJiti(): Jiti {
  // A cache folder removed since it was chosen (`optimize:clear`, an app folder deleted between in-process runs):
  // jiti would fail writing into it, so the default place is used instead.
  if (typeof moduleCache === 'string' && !existsSync(moduleCache)) moduleCache = true
  if (jiti === undefined || jiti.cache !== moduleCache) {
    const { createJiti } = createRequire(import.meta.url)('jiti') as { createJiti(id: string, options: Record<string, unknown>): Jiti }
    // Stacks point at the TypeScript lines (route sources, exception locations).
    process.setSourceMapsEnabled(true)
    jiti = { instance: createJiti(import.meta.url, { sourceMaps: true, moduleCache: true, fsCache: moduleCache }), cache: moduleCache }
  }
  return jiti.instance
}

/** Where transpiled modules are cached: `dir` when it exists, else jiti's default. */
export function useModuleCache(dir: string | undefined): void {
  moduleCache = dir !== undefined && existsSync(dir) ? dir : true
}

/** `<storage>/cache/modules`: written by `svc optimize`, used by every later start. */
export function moduleCacheDir(storageDir: string): string {
  return join(storageDir, 'cache', 'modules')
}

export async function importWithJiti(path: string): Promise<Record<string, unknown>> {
  return (await currentJiti().import(path)) as Record<string, unknown>
}

/**
 * Loads jiti for reading transpiled code (`transpiledCode`) in a process that
 * runs no app file: a command reading traces maps their positions through it,
 * from the transpile cache the server filled (no babel when the file is there).
 */
export function useTranspilerOf(storageDir: string): void {
  useModuleCache(moduleCacheDir(storageDir))
  currentJiti()
}

/**
 * The code jiti ran for a TypeScript file, inline source map included (read
 * from the transpile cache when it is there, as `import` does), or undefined
 * when jiti loaded nothing in this process (tests import with vitest, whose
 * stacks are already mapped) or the file is not one jiti transpiles.
 */
export function transpiledCode(file: string): string | undefined {
  if (jiti === undefined || !/\.[cm]?tsx?$/.test(file) || file.includes(`${sep}node_modules${sep}`)) return undefined
  try {
    return jiti.instance.transform({ filename: file, source: readFileSync(file, 'utf8'), ts: true, async: true })
  } catch {
    return undefined
  }
}

/**
 * Transpiles TypeScript files into the transpile cache that the next process
 * loading them reads (the same options as `importWithJiti`, so the same cache
 * entries), without running them. `svc live` does it for a changed file
 * before it starts the new worker, which then never loads the transpiler
 * (about 1.5 MB of babel). Best effort: a file that does not transpile is
 * left for the worker to report. Without files it only loads the transpiler.
 */
export function pretranspile(files: readonly string[], storageDir: string): void {
  useModuleCache(moduleCacheDir(storageDir))
  const instance = currentJiti()
  if (files.length === 0) {
    instance.transform({ source: 'export const warm: number = 1', ts: true, async: true })
    return
  }
  for (const file of files) {
    if (!/\.[cm]?tsx?$/.test(file)) continue
    try {
      instance.transform({ filename: file, source: readFileSync(file, 'utf8'), ts: true, async: true })
    } catch {
      // the worker loads it and says what is wrong
    }
  }
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
