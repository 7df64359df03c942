import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** The parts of svc's own package.json the CLI reads. */
export interface SvcManifest {
  name: string
  version: string
  dependencies?: Record<string, string>
  devDependencies?: Record<string, string>
}

let found: { manifest: SvcManifest; root: string | null } | undefined

/** svc's own package.json (one level up from cli/, two from dist/cli/) and its folder, read once. */
function ownPackage(): { manifest: SvcManifest; root: string | null } {
  if (found === undefined) {
    const own = [new URL('../package.json', import.meta.url), new URL('../../package.json', import.meta.url)]
      .filter((url) => existsSync(url))
      .map((url) => ({ url, manifest: JSON.parse(readFileSync(url, 'utf8')) as SvcManifest }))
      .find((candidate) => candidate.manifest.name === 'svc')
    found = own === undefined ? { manifest: { name: 'svc', version: '0.0.0' }, root: null } : { manifest: own.manifest, root: fileURLToPath(new URL('.', own.url)) }
  }
  return found
}

/** svc's own package.json. */
export function svcManifest(): SvcManifest {
  return ownPackage().manifest
}

/** The folder of svc's own package.json (the checkout, or node_modules/svc), or null when it is not found. */
export function svcRoot(): string | null {
  return ownPackage().root
}

/** svc's own version. */
export function cliVersion(): string {
  return svcManifest().version
}
