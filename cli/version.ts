import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** The parts of svc's own package.json the CLI reads. */
export interface SvcManifest {
  name: string
  version: string
  dependencies?: Record<string, string>
  devDependencies?: Record<string, string>
}

let manifest: SvcManifest | undefined
let root: string | null | undefined

/** svc's own package.json (one level up from cli/, two from dist/cli/). */
export function svcManifest(): SvcManifest {
  if (manifest === undefined) {
    const found = [new URL('../package.json', import.meta.url), new URL('../../package.json', import.meta.url)]
      .filter((url) => existsSync(url))
      .map((url) => JSON.parse(readFileSync(url, 'utf8')) as SvcManifest)
      .find((parsed) => parsed.name === 'svc')
    manifest = found ?? { name: 'svc', version: '0.0.0' }
  }
  return manifest
}

/** The folder of svc's own package.json (the checkout, or node_modules/svc), or null when it is not found. */
export function svcRoot(): string | null {
  if (root === undefined) {
    const url = [new URL('../package.json', import.meta.url), new URL('../../package.json', import.meta.url)].find(
      (candidate) => existsSync(candidate) && (JSON.parse(readFileSync(candidate, 'utf8')) as SvcManifest).name === 'svc',
    )
    root = url === undefined ? null : fileURLToPath(new URL('.', url))
  }
  return root
}

/** svc's own version. */
export function cliVersion(): string {
  return svcManifest().version
}
