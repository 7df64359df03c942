/**
 * `.env` files on Node. The process environment wins over the file, so a
 * deployment can override any value without editing it.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { parseEnv } from 'node:util'
import type { EnvRecord } from '../config/config.ts'

export function readEnvFile(path: string): Record<string, string> {
  if (!existsSync(path)) return {}
  return parseEnv(readFileSync(path, 'utf8')) as Record<string, string>
}

/** The `.env` file's values overridden by the process environment. */
export function loadEnv(path: string, processEnv: EnvRecord = process.env): Record<string, string | undefined> {
  return { ...readEnvFile(path), ...definedOnly(processEnv) }
}

/** A random JWT secret: 48 bytes from the platform CSPRNG, base64url (64 characters). */
export function generateSecret(bytes = 48): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString('base64url')
}

/**
 * Creates `.env` when it is missing, from `.env.example` if there is one,
 * with a fresh JWT_SECRET. Returns true when it wrote the file.
 */
export function ensureEnvFile(path: string, examplePath?: string): boolean {
  if (existsSync(path)) return false
  const template =
    examplePath !== undefined && existsSync(examplePath)
      ? readFileSync(examplePath, 'utf8')
      : 'APP_ENV=development\nJWT_SECRET=\n'
  writeFileSync(path, setEnvValue(template, 'JWT_SECRET', generateSecret()), { mode: 0o600 })
  return true
}

/** Replaces (or appends) `NAME=value` in the text of a .env file. */
export function setEnvValue(text: string, name: string, value: string): string {
  const line = `${name}=${value}`
  const pattern = new RegExp(`^${name}=.*$`, 'm')
  if (pattern.test(text)) return text.replace(pattern, line)
  return `${text}${text === '' || text.endsWith('\n') ? '' : '\n'}${line}\n`
}

function definedOnly(env: EnvRecord): Record<string, string> {
  const result: Record<string, string> = {}
  for (const [key, value] of Object.entries(env)) if (value !== undefined) result[key] = value
  return result
}
