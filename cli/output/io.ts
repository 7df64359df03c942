/**
 * What a command talks to: its output streams, its input, its environment and
 * folder, and its exit code. The `svc` binary hands every command the
 * process's own (`processIO`); tests run commands in-process with a
 * `bufferIO` and read back what was printed. A command never touches
 * `process.stdout`, `process.exitCode`, `process.env` or `process.cwd()`.
 */
import { Readable } from 'node:stream'

/** The part of a stream a command writes to. */
export interface OutputStream {
  write(text: string): unknown
  /** True when a person reads it on a terminal: colours, progress. */
  readonly isTTY?: boolean
}

export interface InputStream extends NodeJS.ReadableStream {
  readonly isTTY?: boolean
}

export interface CommandIO {
  readonly stdout: OutputStream
  readonly stderr: OutputStream
  readonly stdin: InputStream
  /** The environment the command runs with (`.env` values are read on top of it, never into it). */
  readonly env: Readonly<Record<string, string | undefined>>
  /** The folder relative paths (`--cwd`) start from. */
  readonly cwd: string
  /** Aborted when a command that runs until stopped (serve, log:tail --follow) must stop: SIGINT/SIGTERM, or the test. */
  readonly signal: AbortSignal
  /**
   * Calls `listener` on every SIGHUP (a server reloads its workers) until the
   * returned function is called. Only a command that asks for it changes
   * what SIGHUP does to the process.
   */
  onHangup(listener: () => void): () => void
  /** 0 unless the command sets it (or fails). */
  exitCode: number
}

/** The process's own streams and environment (the `svc` binary). */
export function processIO(signal: AbortSignal): CommandIO {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
    signal,
    onHangup(listener) {
      process.on('SIGHUP', listener)
      return () => void process.off('SIGHUP', listener)
    },
    exitCode: 0,
  }
}

export interface BufferIOOptions {
  cwd: string
  env?: Record<string, string | undefined>
  /** What stdin holds (default: nothing). */
  stdin?: string
  /** Pretend stdout (and stderr) are terminals: the human view with colours. */
  tty?: boolean
  signal?: AbortSignal
}

export interface BufferIO extends CommandIO {
  /** Everything written to stdout so far. */
  readonly output: { stdout: string; stderr: string }
  /** What a SIGHUP would do to the command. */
  hangup(): void
}

/** IO that keeps what a command prints in memory (in-process runs). */
export function bufferIO(options: BufferIOOptions): BufferIO {
  const output = { stdout: '', stderr: '' }
  const tty = options.tty === true
  const stdin = Readable.from(options.stdin === undefined ? [] : [options.stdin]) as InputStream
  const hangupListeners = new Set<() => void>()
  return {
    stdout: { write: (text: string) => (output.stdout += text), isTTY: tty },
    stderr: { write: (text: string) => (output.stderr += text), isTTY: tty },
    stdin,
    env: options.env ?? {},
    cwd: options.cwd,
    signal: options.signal ?? new AbortController().signal,
    onHangup(listener) {
      hangupListeners.add(listener)
      return () => void hangupListeners.delete(listener)
    },
    hangup: () => hangupListeners.forEach((listener) => listener()),
    exitCode: 0,
    output,
  }
}
