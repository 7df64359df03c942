/**
 * The bench scripts' command lines. A typo in a flag or a value that is not
 * a number is one line on stderr and exit 2: never a stack trace, and never
 * a value silently ignored (`--rewarm abc` would otherwise mean no rewarm).
 */
import { parseArgs, type ParseArgsConfig } from 'node:util'

/** A command line the script cannot run with; `message` says why. */
export class FlagError extends Error {
  override readonly name = 'FlagError'
}

/** parseArgs, with its own errors (an unknown or malformed flag) as a FlagError. */
export function parseFlags<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config)
  } catch (error) {
    throw new FlagError(error instanceof Error ? error.message : String(error))
  }
}

/** `--name`'s value as a number: above zero (`positive`) or at least zero (`non-negative`). */
export function numberFlag(name: string, raw: string | undefined, range: 'positive' | 'non-negative'): number {
  const value = Number(raw)
  const fits = Number.isFinite(value) && raw !== undefined && raw.trim() !== '' && (range === 'positive' ? value > 0 : value >= 0)
  if (!fits) throw new FlagError(`--${name} must be a ${range} number, got "${raw}"`)
  return value
}

/** Runs a script's flag handling; a FlagError ends the process with its message, the usage, and exit code 2. */
export function withFlags<T>(usage: string, read: () => T): T {
  try {
    return read()
  } catch (error) {
    if (!(error instanceof FlagError)) throw error
    process.stderr.write(`${error.message}\n${usage}\n`)
    process.exit(2)
  }
}
