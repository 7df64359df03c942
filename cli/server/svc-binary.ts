/**
 * The `svc` binary this CLI runs as, for the processes it starts itself
 * (server workers, deploy steps that call `svc`): the built `bin.js` beside
 * this module, or, when the CLI runs from its TypeScript sources (the tests),
 * the repository's built one (`npm test` builds first).
 */
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

export function svcBinPath(): string {
  const beside = fileURLToPath(new URL('../bin.js', import.meta.url))
  if (existsSync(beside)) return beside
  return fileURLToPath(new URL('../../dist/cli/bin.js', import.meta.url))
}
