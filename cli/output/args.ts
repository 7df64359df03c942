/** Argument fragments shared by commands, declared once. */
import { CliError } from './cli-error.ts'

export const cwdArg = {
  cwd: { type: 'string', description: 'Project folder (default: the current folder)', valueHint: 'dir' },
} as const

export const jsonArg = {
  json: { type: 'boolean', description: 'Print stable JSON on stdout', default: false },
} as const

/** A whole-number option, or a CliError naming it. */
export function intOption(name: string, value: unknown, fallback: number, min = 0): number {
  if (value === undefined || value === '') return fallback
  const parsed = Number(value)
  if (!Number.isInteger(parsed) || parsed < min) {
    throw new CliError('E_BAD_OPTION', `--${name} takes a whole number of at least ${min}, got "${String(value)}"`)
  }
  return parsed
}
