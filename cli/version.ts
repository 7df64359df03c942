import { existsSync, readFileSync } from 'node:fs'

/** The parts of svc's own package.json the CLI reads. */
export interface SvcManifest {
  name: string
  version: string
  dependencies?: Record<string, string>
  devDependencies?: Record<string, string>
}

let manifest: SvcManifest | undefined

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

/** svc's own version. */
export function cliVersion(): string {
  return svcManifest().version
}
