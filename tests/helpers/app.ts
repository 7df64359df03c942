/** Small builders shared by the framework-level tests. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { resolveConfig, type AppConfig, type EnvRecord } from 'svc'

/** A config as a test app sees it: `APP_ENV=test`, debug off unless asked. */
export function testConfig(vars: EnvRecord = {}): AppConfig {
  return resolveConfig({ APP_ENV: 'test', APP_DEBUG: 'false', ...vars })
}

/** A fresh folder under the OS temp dir; `remove()` deletes it. */
export function tempDir(prefix = 'svc-test-'): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix))
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) }
}

/** The JSON body of a response, or null when it has none. */
export async function jsonOf(response: Response): Promise<any> {
  const text = await response.text()
  return text === '' ? null : JSON.parse(text)
}
