/** Output helpers: JSON on stdout only, everything for humans is formatted here. */
import { CliError } from './cli-error.ts'

/** Stable JSON: two-space indented, one document, newline-terminated. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`)
}

export function printLine(text = ''): void {
  process.stdout.write(`${text}\n`)
}

/** Progress and hints go to stderr so that stdout stays parseable. */
export function printNote(text: string): void {
  process.stderr.write(`${text}\n`)
}

const useColor = (): boolean => !process.env.NO_COLOR && process.stdout.isTTY === true

export const color = {
  bold: (text: string) => (useColor() ? `\x1b[1m${text}\x1b[22m` : text),
  dim: (text: string) => (useColor() ? `\x1b[2m${text}\x1b[22m` : text),
  red: (text: string) => (useColor() ? `\x1b[31m${text}\x1b[39m` : text),
  green: (text: string) => (useColor() ? `\x1b[32m${text}\x1b[39m` : text),
  yellow: (text: string) => (useColor() ? `\x1b[33m${text}\x1b[39m` : text),
  cyan: (text: string) => (useColor() ? `\x1b[36m${text}\x1b[39m` : text),
}

/** Left-aligned columns, for human views. */
export function table(rows: string[][], headers: string[]): string {
  const all = [headers, ...rows]
  const widths = headers.map((_, column) => Math.max(...all.map((row) => visibleLength(row[column] ?? ''))))
  return all
    .map((row) =>
      row
        .map((cell, column) => (column === row.length - 1 ? cell : cell + ' '.repeat(widths[column]! - visibleLength(cell))))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')
}

function visibleLength(text: string): number {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\x1b\[[0-9;]*m/g, '').length
}

export function reportError(error: unknown): number {
  if (error instanceof CliError) {
    process.stderr.write(`error [${error.code}]: ${error.message}\n`)
    if (error.hint) process.stderr.write(`  fix: ${error.hint}\n`)
    return error.exitCode
  }
  const message = error instanceof Error ? (process.env.SVC_DEBUG ? error.stack : error.message) : String(error)
  process.stderr.write(`error: ${message}\n`)
  return 1
}
