/**
 * `svc env:cache`: the environment as the app sees it (`.env` under the
 * process environment, limited to `.env`'s names and those svc reads), written
 * to `storage/cache/env.json` without its sensitive values, so that it can be
 * shown, shared and compared (`svc doctor` says which settings changed since).
 *
 * Sensitive: a name containing SECRET, KEY, PASSWORD (or PASSWD, PWD), TOKEN
 * or PRIVATE, and any URL that carries a password (`libsql://user:pw@host`).
 * The app does not start from this file: the config cache is the one that
 * does (it holds the secrets, signed); this one holds none.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { readEnvFile } from '../../framework/node/index.ts'
import { realEnvironment } from './config-cache.ts'
import type { Project } from './project.ts'
import { settingNames } from './settings.ts'

export const SENSITIVE_NAME = /SECRET|KEY|PASSWORD|PASSWD|PWD|TOKEN|PRIVATE/i

export interface EnvCacheFile {
  created_at: string
  vars: Record<string, string>
  left_out: string[]
}

export function envCachePath(project: Project): string {
  return join(project.storageDir, 'cache', 'env.json')
}

export function isSensitive(name: string, value: string): boolean {
  if (SENSITIVE_NAME.test(name)) return true
  try {
    return new URL(value).password !== ''
  } catch {
    return false
  }
}

/** The app's variables now, split into what may be written and what may not. */
export function splitEnvironment(project: Project): { kept: Record<string, string>; leftOut: string[] } {
  const env = realEnvironment(project)
  const names = [...new Set([...Object.keys(readEnvFile(project.envFile)), ...settingNames(env)])].sort()
  const kept: Record<string, string> = {}
  const leftOut: string[] = []
  for (const name of names) {
    const value = env[name]
    if (value === undefined) continue
    if (isSensitive(name, value)) leftOut.push(name)
    else kept[name] = value
  }
  return { kept, leftOut }
}

export function writeEnvCache(project: Project): { file: string; kept: string[]; leftOut: string[] } {
  const { kept, leftOut } = splitEnvironment(project)
  const file = envCachePath(project)
  mkdirSync(dirname(file), { recursive: true })
  const cache: EnvCacheFile = { created_at: new Date().toISOString(), vars: kept, left_out: leftOut }
  writeFileSync(file, `${JSON.stringify(cache, null, 2)}\n`)
  return { file, kept: Object.keys(kept), leftOut }
}

export function readEnvCache(project: Project): EnvCacheFile | undefined {
  const file = envCachePath(project)
  if (!existsSync(file)) return undefined
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as EnvCacheFile
    return typeof parsed.vars === 'object' && parsed.vars !== null ? parsed : undefined
  } catch {
    return undefined
  }
}
