/**
 * Runs the CLI itself for every document the language server returns
 * (`route:list --json`, `trace:list --json`, `replay <id> --json`...), so the
 * editor shows exactly what the CLI prints: one implementation. A fresh
 * process also sees edited route files (jiti's module cache would not).
 */
import { spawn } from 'node:child_process'
import type { CliErrorJson } from '../contract/errors.ts'
import type { SvcErrorData } from '../contract/lsp.ts'

export class CliCommandError extends Error {
  readonly code: string
  readonly hint: string | null

  constructor(data: SvcErrorData) {
    super(data.message)
    this.name = 'CliCommandError'
    this.code = data.code
    this.hint = data.hint
  }

  toJSON(): SvcErrorData {
    return { code: this.code, message: this.message, hint: this.hint }
  }
}

export interface CliRunner {
  /** Runs `svc <command> --json --cwd=<root> <args...>` and parses stdout; a failure is a CliCommandError. */
  json<T>(args: string[]): Promise<T>
}

export interface CliRunnerOptions {
  /** The command that is `svc`: `[process.execPath, '/path/to/dist/cli/bin.js']` by default. */
  command: string[]
  /** The project folder (`--cwd`). */
  root: string
  env?: NodeJS.ProcessEnv
  timeoutMs?: number
}

export function createCliRunner(options: CliRunnerOptions): CliRunner {
  const [executable, ...prefix] = options.command
  return {
    json<T>(args: string[]): Promise<T> {
      return new Promise((resolve, reject) => {
        // The runner's own options right after the command name: the args may end with `-- <positionals>`.
        const [command, ...rest] = args
        const child = spawn(executable!, [...prefix, command!, '--json', `--cwd=${options.root}`, ...rest], {
          cwd: options.root,
          env: { ...process.env, ...options.env, NO_COLOR: '1', FORCE_COLOR: '0' },
          stdio: ['ignore', 'pipe', 'pipe'],
        })
        let stdout = ''
        let stderr = ''
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
        child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
        const timer = setTimeout(() => child.kill('SIGTERM'), options.timeoutMs ?? 120_000)
        child.on('error', (error) => {
          clearTimeout(timer)
          reject(new CliCommandError({ code: 'E_SPAWN', message: `Cannot run svc (${options.command.join(' ')}): ${error.message}`, hint: 'check the svc.command setting' }))
        })
        child.on('close', (exitCode, signal) => {
          clearTimeout(timer)
          if (exitCode === 0) {
            try {
              return resolve(JSON.parse(stdout) as T)
            } catch {
              return reject(new CliCommandError({ code: 'E_BAD_JSON', message: `svc ${args[0]} printed no JSON: ${stdout.slice(0, 200)}`, hint: null }))
            }
          }
          reject(new CliCommandError(readCliFailure(stdout, stderr, signal ? `svc ${args[0]} was stopped (${signal})` : `svc ${args[0]} failed (exit ${exitCode})`)))
        })
      })
    },
  }
}

/**
 * A failed `svc ... --json`: the CliErrorJson document it printed on stdout;
 * the stderr lines when there is none (an svc older than that document, or a
 * process that died before reporting).
 */
export function readCliFailure(stdout: string, stderr: string, fallback: string): SvcErrorData {
  const data = cliErrorDocument(stdout) ?? parseCliError(stderr, fallback)
  // One line: a tree item or a diagnostic shows a message's first line only, and a parse error's file:line:column is on its second.
  return { ...data, message: data.message.replace(/\s*\n\s*/g, ' ').trim() }
}

function cliErrorDocument(stdout: string): SvcErrorData | undefined {
  let document: unknown
  try {
    document = JSON.parse(stdout)
  } catch {
    return undefined
  }
  const error = (document as Partial<CliErrorJson> | null)?.error
  if (typeof error !== 'object' || error === null || typeof error.code !== 'string' || typeof error.message !== 'string') return undefined
  return { code: error.code, message: error.message, hint: typeof error.fix === 'string' ? error.fix : null }
}

/** `error [E_CODE]: message` and `  fix: hint`, as `reportError` prints them. */
export function parseCliError(stderr: string, fallback: string): SvcErrorData {
  // The message runs on to the `fix:` line: a ParseError's location is the line under its first.
  const match = /^error \[([A-Z0-9_]+)\]: ([\s\S]*?)\s*(?:^\s+fix: |$(?![\s\S]))/m.exec(stderr)
  const hint = /^\s+fix: (.*)$/m.exec(stderr)?.[1] ?? null
  if (match) return { code: match[1]!, message: match[2]!, hint }
  const plain = /^error: (.*)$/m.exec(stderr)?.[1]
  return { code: 'E_CLI', message: plain ?? (stderr.trim().split('\n').at(-1) || fallback), hint }
}
