/** Output helpers: JSON on stdout only, everything for humans is formatted here. */
import { format } from 'node:util'
import { isDiskFull } from '../database/disk-full.ts'
import { commandErrorMessage, DATABASE_UNREACHABLE_FIX, isDatabaseLocked, isDatabaseUnreachable } from '../database/locked.ts'
import type { CliErrorDetailJson, CliErrorJson } from '../contract/errors.ts'
import { CliError } from './cli-error.ts'
import { terminalLines } from './terminal-text.ts'
import type { CommandIO, OutputStream } from './io.ts'

/**
 * Runs the app's own code (its modules as they load, a seeder, a replayed
 * request's handler) with its console on the command's stderr: what it logs
 * is for humans, and `--json` keeps stdout one JSON document.
 * Runs may nest or overlap (in-process tests): the console writes to the
 * latest run still going, and is given back only when the last one ends.
 */
export async function withConsoleOnStderr<T>(io: CommandIO, work: () => Promise<T>): Promise<T> {
  if (consoleTargets.length === 0) {
    savedConsole = { log: console.log, info: console.info, warn: console.warn, error: console.error, debug: console.debug }
    console.log = console.info = console.warn = console.error = console.debug = writeToLatestStderr
  }
  consoleTargets.push(io)
  try {
    return await work()
  } finally {
    consoleTargets.splice(consoleTargets.lastIndexOf(io), 1)
    if (consoleTargets.length === 0 && savedConsole !== undefined) {
      Object.assign(console, savedConsole)
      savedConsole = undefined
    }
  }
}

const consoleTargets: CommandIO[] = []
let savedConsole: Pick<Console, 'log' | 'info' | 'warn' | 'error' | 'debug'> | undefined

function writeToLatestStderr(...args: unknown[]): void {
  consoleTargets.at(-1)?.stderr.write(`${format(...args)}\n`)
}

/** Stable JSON: two-space indented, one document, newline-terminated. */
export function printJson(io: CommandIO, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`)
}

export function printLine(io: CommandIO, text = ''): void {
  io.stdout.write(`${text}\n`)
}

/** Progress and hints go to stderr so that stdout stays parseable. */
export function printNote(io: CommandIO, text: string): void {
  io.stderr.write(`${text}\n`)
}

export interface Colors {
  bold(text: string): string
  dim(text: string): string
  red(text: string): string
  green(text: string): string
  yellow(text: string): string
  cyan(text: string): string
}

const paint = (open: number, close: number) => (text: string) => `\x1b[${open}m${text}\x1b[${close}m`
const plain = (text: string) => text

const ANSI: Colors = { bold: paint(1, 22), dim: paint(2, 22), red: paint(31, 39), green: paint(32, 39), yellow: paint(33, 39), cyan: paint(36, 39) }
const PLAIN: Colors = { bold: plain, dim: plain, red: plain, green: plain, yellow: plain, cyan: plain }

/** Colours for what goes to `stream` (stdout by default): only on a terminal, and never with NO_COLOR. */
export function colors(io: CommandIO, stream: OutputStream = io.stdout): Colors {
  const noColor = io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== ''
  return stream.isTTY === true && !noColor ? ANSI : PLAIN
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

/**
 * Prints a failure on stderr (`error [E_CODE]: message`, then `  fix: hint`)
 * and returns the exit code it calls for. With `json` (the command line has
 * `--json`) it also prints the failure as one `CliErrorJson` document on
 * stdout, so that a script or the editor reads the code without parsing
 * stderr; stderr stays as it is for the person watching.
 */
export function reportError(io: CommandIO, error: unknown, options: { json?: boolean } = {}): number {
  const failure = describeFailure(error)
  if (failure.code === UNEXPECTED || (io.env.SVC_DEBUG && !(error instanceof CliError))) {
    // Not foreseen, or SVC_DEBUG asks for the stack: no code or fix on stderr (the JSON document still names one).
    // Messages carry the app's own text (an SQL error, a seeder's throw): its control characters are escaped, not sent to the terminal.
    io.stderr.write(`error: ${terminalLines(error instanceof Error && io.env.SVC_DEBUG ? (error.stack ?? error.message) : failure.message)}\n`)
  } else {
    io.stderr.write(`error [${failure.code}]: ${terminalLines(failure.message)}\n`)
    if (failure.fix) io.stderr.write(`  fix: ${terminalLines(failure.fix)}\n`)
  }
  if (options.json) printJson(io, { error: failure } satisfies CliErrorJson)
  return failure.exit_code
}

/** The code of a failure svc did not foresee (a bug, a dependency that threw). */
export const UNEXPECTED = 'E_UNEXPECTED'

/** A thrown value as svc reports it: a CliError as it is, a database lock or a server out of reach named, anything else E_UNEXPECTED. */
export function describeFailure(error: unknown): CliErrorDetailJson {
  if (error instanceof CliError) return { code: error.code, message: error.message, fix: error.hint || null, exit_code: error.exitCode }
  if (isDatabaseLocked(error)) return { code: 'E_DATABASE_LOCKED', message: commandErrorMessage(error), fix: 'run it again once that write is done', exit_code: 1 }
  if (isDiskFull(error)) return { code: 'E_DISK_FULL', message: commandErrorMessage(error), fix: 'free space on the disk holding storage/ (svc log:cleanup --days N deletes old traces), then run it again', exit_code: 1 }
  if (isDatabaseUnreachable(error)) return { code: 'E_DATABASE_UNREACHABLE', message: commandErrorMessage(error), fix: DATABASE_UNREACHABLE_FIX, exit_code: 1 }
  return { code: UNEXPECTED, message: error instanceof Error ? error.message : String(error), fix: null, exit_code: 1 }
}
