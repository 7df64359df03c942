/**
 * Loads the app's TypeScript files at run time with jiti (measured at about
 * 7 ms for a cached small file against about 300 ms for tsx's tsImport; see
 * docs/benchmarks.md). Tests inject the runner's own `import()` instead.
 */
import { pathToFileURL } from 'node:url'

export type ImportFile = (path: string) => Promise<Record<string, unknown>>

let jitiImport: ImportFile | undefined

export async function importWithJiti(path: string): Promise<Record<string, unknown>> {
  if (jitiImport === undefined) {
    const { createJiti } = await import('jiti')
    // Stacks point at the TypeScript lines (route sources, exception locations).
    process.setSourceMapsEnabled(true)
    const jiti = createJiti(import.meta.url, { sourceMaps: true, moduleCache: true })
    jitiImport = (file) => jiti.import(file) as Promise<Record<string, unknown>>
  }
  return jitiImport(path)
}

/** The runner's native `import()` (vitest transforms TypeScript itself). */
export const importNatively: ImportFile = (path) => import(pathToFileURL(path).href)
