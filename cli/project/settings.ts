/**
 * Every setting svc reads from the environment, learned from the readers
 * themselves rather than from a second list that could drift: each reader
 * (the app's config, auth's, the tracer's, the JWT keys', the maintenance
 * file's) runs on a recording view of the variables.
 *
 * - `settingNames` says which variables they read (the config cache keeps
 *   those; env:check suggests them for a misspelt name).
 * - `settingProblems` finds every invalid value, not only the first: a
 *   reader stops at its first ConfigError, so the variable it names is set
 *   aside and the readers run again, until none fails.
 *
 * A feature that adds settings adds its reader to SETTINGS_READERS.
 */
import {
  ConfigError,
  isTimeZone,
  resolveAuthSettings,
  resolveConfig,
  resolveIdempotencySettings,
  resolveMailSettings,
  resolveQueueSettings,
  type EnvRecord,
} from '../../framework/index.ts'
import { resolveKeyMaterial, type JwtKeyMaterial } from '../../framework/auth/keys.ts'
import { resolveTraceConfig } from '../../framework/trace/index.ts'

export type SettingsReader = (vars: EnvRecord, files: { jwtKeys: JwtKeyMaterial }) => unknown

export const SETTINGS_READERS: Readonly<Record<string, SettingsReader>> = {
  app: (vars) => resolveConfig(vars),
  auth: (vars) => resolveAuthSettings(resolveConfig(vars)),
  jwtKeys: (vars, files) => resolveKeyMaterial(resolveConfig(vars), files.jwtKeys),
  traces: (vars) => resolveTraceConfig(vars),
  maintenance: (vars) => vars.MAINTENANCE_FILE,
  configCache: (vars) => vars.APP_KEY,
  apiDocs: (vars) => vars.API_DOCS,
  queue: (vars) => resolveQueueSettings(resolveConfig(vars)),
  mail: (vars) => resolveMailSettings(resolveConfig(vars)),
  idempotency: (vars) => resolveIdempotencySettings(vars),
  schedule: (vars) => {
    const zone = vars.SCHEDULE_TIMEZONE?.trim() || 'UTC'
    if (!isTimeZone(zone)) throw new ConfigError('SCHEDULE_TIMEZONE', `unknown time zone "${zone}" (an IANA zone such as Europe/Paris)`)
    return zone
  },
}

export interface SettingProblem {
  variable: string
  message: string
}

/** The variables the readers look at (with any values). */
export function settingNames(vars: EnvRecord, files: { jwtKeys: JwtKeyMaterial } = { jwtKeys: {} }): Set<string> {
  const names = new Set<string>()
  const recording = new Proxy(vars, {
    get(target, name, receiver) {
      if (typeof name === 'string') names.add(name)
      return Reflect.get(target, name, receiver)
    },
  })
  for (const read of Object.values(SETTINGS_READERS)) {
    try {
      read(recording, files)
    } catch {
      // A reader that fails on a value still read the names before it; the rest are found from a valid environment.
    }
  }
  // Readers stop at their first bad value: read once more with the defaults for the rest.
  for (const read of Object.values(SETTINGS_READERS)) {
    try {
      read(new Proxy({} as EnvRecord, { get: (_target, name) => (typeof name === 'string' && names.add(name), undefined) }), files)
    } catch {
      // defaults always read
    }
  }
  return names
}

/** Every invalid setting, each with the reader's own message. */
export function settingProblems(vars: EnvRecord, files: { jwtKeys: JwtKeyMaterial } = { jwtKeys: {} }): SettingProblem[] {
  const problems: SettingProblem[] = []
  const current: Record<string, string | undefined> = { ...vars }
  // A reader whose error does not go away without the variable (a required one) is not asked again.
  const settled = new Set<string>()
  for (let round = 0; round < 100; round++) {
    const found = firstConfigError(current, files, settled)
    if (found === undefined) break
    const { reader, error } = found
    if (problems.some((problem) => problem.variable === error.variable)) {
      settled.add(reader)
      continue
    }
    problems.push({ variable: error.variable, message: error.message.slice(error.variable.length + 2) })
    current[error.variable] = undefined
  }
  return problems
}

function firstConfigError(vars: EnvRecord, files: { jwtKeys: JwtKeyMaterial }, skipped: ReadonlySet<string>): { reader: string; error: ConfigError } | undefined {
  for (const [reader, read] of Object.entries(SETTINGS_READERS)) {
    if (skipped.has(reader)) continue
    try {
      read(vars, files)
    } catch (error) {
      if (error instanceof ConfigError) return { reader, error }
      throw error
    }
  }
  return undefined
}
