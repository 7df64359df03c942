/**
 * Readers of single environment variables, shared by every settings module
 * (the app's, auth's, traces'): a blank value counts as unset, and a bad one
 * is a ConfigError naming the variable.
 */
import { ConfigError } from './config-error.ts'

type EnvRecord = Readonly<Record<string, string | undefined>>

export function text(vars: EnvRecord, name: string): string | undefined {
  const value = vars[name]?.trim()
  return value === undefined || value === '' ? undefined : value
}

export function int(vars: EnvRecord, name: string, fallback: number, min: number, max: number): number {
  const raw = text(vars, name)
  if (raw === undefined) return fallback
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `expected a whole number, got "${raw}"`)
  const value = Number(raw)
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`)
  return value
}

export function bool(vars: EnvRecord, name: string, fallback: boolean): boolean {
  const raw = text(vars, name)?.toLowerCase()
  if (raw === undefined) return fallback
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true
  if (['0', 'false', 'no', 'off'].includes(raw)) return false
  throw new ConfigError(name, `expected true or false, got "${raw}"`)
}

export function oneOf<T extends string>(vars: EnvRecord, name: string, allowed: readonly T[], fallback: T): T {
  const raw = text(vars, name)
  if (raw === undefined) return fallback
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `expected one of ${allowed.join(', ')}, got "${raw}"`)
  }
  return raw as T
}

export function list(vars: EnvRecord, name: string): string[] {
  return (text(vars, name) ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')
}

/** A number, fractions allowed (`0.25`). */
export function number(vars: EnvRecord, name: string, fallback: number, min: number, max: number): number {
  const raw = text(vars, name)
  if (raw === undefined) return fallback
  const value = Number(raw)
  if (!/^\d+(\.\d+)?$/.test(raw) || value < min || value > max) {
    throw new ConfigError(name, `expected a number from ${min} to ${max}, got "${raw}"`)
  }
  return value
}
