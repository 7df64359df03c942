import { existsSync, readFileSync } from 'node:fs'

let version: string | undefined

/** svc's own version, from its package.json (one level up from cli/, two from dist/cli/). */
export function cliVersion(): string {
  if (version === undefined) {
    const manifest = [new URL('../package.json', import.meta.url), new URL('../../package.json', import.meta.url)].find(
      (url) => existsSync(url) && (JSON.parse(readFileSync(url, 'utf8')) as { name?: string }).name === 'svc',
    )
    version = manifest ? (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version : '0.0.0'
  }
  return version
}
