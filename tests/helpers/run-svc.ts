/**
 * Runs `svc` commands in-process, as the binary would run them (the same
 * dispatch, argument checks and error reporting: cli/main.ts), with their
 * output kept in memory. Every `--json` document a test reads through
 * `svcJson` is validated against the contract schema(s) its command declares
 * (meta.json), so each test that reads JSON also checks the contract.
 */
import { readdirSync } from 'node:fs'
import { findCommand, loadManifest } from '../../cli/command/manifest.ts'
import type { CliErrorJson } from '../../cli/contract/index.ts'
import { runCli } from '../../cli/main.ts'
import { bufferIO } from '../../cli/output/io.ts'
import { svcEnv } from './cli.ts'
import { contractAjv, contractValidator } from './contract.ts'

export { contractValidator }

export interface RunOptions {
  /** The folder svc runs in (the project, unless `--cwd` says otherwise). */
  cwd: string
  /** Added to a clean environment (no svc settings from the developer's shell; NO_COLOR=1). */
  env?: Record<string, string>
  stdin?: string
  /** Pretend stdout is a terminal. */
  tty?: boolean
  /** Aborts a command that runs until stopped (log:tail). */
  signal?: AbortSignal
}

export interface RunResult {
  exitCode: number
  stdout: string
  stderr: string
}

/** `svc <argv>`, in this process. */
export async function runSvc(argv: string[], options: RunOptions): Promise<RunResult> {
  const io = bufferIO({ cwd: options.cwd, env: svcEnv(options.env), stdin: options.stdin, tty: options.tty, signal: options.signal })
  const filesBefore = openFileCount()
  const exitCode = await runCli(argv, io)
  await releaseClosedDatabases(filesBefore)
  return { exitCode, ...io.output }
}

export interface RunningSvc {
  /** What it printed so far. */
  readonly output: { stdout: string; stderr: string }
  /** Resolves with the first stdout line matching `pattern`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>
  /** Aborts it (as SIGINT would) and waits for it to finish. */
  stop(): Promise<RunResult>
}

/** Starts a command that runs until stopped (serve, log:tail) in this process. */
export function startSvc(argv: string[], options: Omit<RunOptions, 'signal'>): RunningSvc {
  const controller = new AbortController()
  const io = bufferIO({ cwd: options.cwd, env: svcEnv(options.env), stdin: options.stdin, tty: options.tty, signal: controller.signal })
  let finished = false
  const filesBefore = openFileCount()
  const done = runCli(argv, io).then(async (exitCode) => {
    finished = true
    await releaseClosedDatabases(filesBefore)
    return { exitCode, ...io.output }
  })
  return {
    output: io.output,
    async waitFor(pattern, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const match = io.output.stdout.split('\n').map((line) => pattern.exec(line)).find((found) => found !== null)
        if (match) return match
        if (finished || Date.now() > deadline) throw new Error(`no line matching ${pattern} (${finished ? `exited ${io.exitCode}` : `within ${timeoutMs} ms`}); stdout: ${io.output.stdout}\nstderr: ${io.output.stderr}`)
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    },
    stop() {
      controller.abort('SIGINT')
      return done
    },
  }
}

/**
 * libsql keeps a closed database's files open until its object is garbage
 * collected. A spawned svc (serve) that later closes the same database
 * deletes its -wal file under those stale handles, and the next in-process
 * open fails with SQLITE_IOERR. vitest runs with --expose-gc (vitest.config.ts).
 * Only when the command left more files open than it found (most commands
 * that fail on their arguments, or read no database, open none). A command's
 * databases are young objects: a minor collection frees them, and their
 * handles close once the finalizers have run (the next turn of the event
 * loop). A full collection walks the whole heap of a worker that has run many
 * files (`isolate: false`): about 100 ms each, 31 s over five CLI test files,
 * against 4 s this way (docs/benchmarks.md, "The test suite's wall time"). It
 * runs only when the files are still open after the minor one.
 */
async function releaseClosedDatabases(filesBefore: number | undefined): Promise<void> {
  const filesAfter = openFileCount()
  if (filesBefore !== undefined && filesAfter !== undefined && filesAfter <= filesBefore) return
  const gc = (globalThis as { gc?: (options?: { type: 'minor' | 'major' }) => void }).gc
  if (gc === undefined) return
  const finalizersRun = () => new Promise((resolve) => setImmediate(resolve))
  // Where open files cannot be counted, a full collection every time, as before.
  if (filesBefore === undefined) return gc({ type: 'major' })
  gc({ type: 'minor' })
  await finalizersRun()
  if ((openFileCount() ?? 0) <= filesBefore) return
  gc({ type: 'major' })
  await finalizersRun()
}

/** The files this process has open, where the system lists them (/proc on Linux); undefined elsewhere. */
function openFileCount(): number | undefined {
  try {
    return readdirSync('/proc/self/fd').length
  } catch {
    return undefined
  }
}

/**
 * `svc <argv> --json`: the parsed document, after checking that the command
 * succeeded and that the document is one its `meta.json` declares.
 */
export async function svcJson<T = any>(argv: string[], options: RunOptions): Promise<T> {
  const result = await runSvc([...argv, '--json'], options)
  if (result.exitCode !== 0) throw new Error(`svc ${argv.join(' ')} --json exited ${result.exitCode}: ${result.stderr}`)
  const document = JSON.parse(result.stdout) as T
  await expectContract(argv[0]!, document)
  return document
}

/**
 * `svc <argv> --json` that is to fail: the error document it printed on
 * stdout (checked against CliErrorJson), with the exit code and stderr.
 */
export async function svcJsonError(argv: string[], options: RunOptions): Promise<RunResult & { document: CliErrorJson }> {
  const result = await runSvc([...argv, '--json'], options)
  if (result.exitCode === 0) throw new Error(`svc ${argv.join(' ')} --json succeeded: ${result.stdout.slice(0, 300)}`)
  const document = JSON.parse(result.stdout) as CliErrorJson
  const validate = contractValidator('CliErrorJson')
  if (!validate(document)) throw new Error(`not a CliErrorJson: ${contractAjv.errorsText(validate.errors)}\n${result.stdout}`)
  return { ...result, document }
}

/** Fails unless `document` is one of the documents the command declares in its meta.json. */
export async function expectContract(command: string, document: unknown): Promise<void> {
  const entry = findCommand(await loadManifest(), command)
  if (entry === undefined) throw new Error(`no command ${command}`)
  if (entry.json.length === 0) throw new Error(`svc ${command} prints --json but declares no contract document (meta.json)`)
  const failures: string[] = []
  for (const name of entry.json) {
    const validate = contractValidator(name)
    if (validate(document)) return
    failures.push(`${name}: ${contractAjv.errorsText(validate.errors)}`)
  }
  throw new Error(`svc ${command} --json printed a document that is not ${entry.json.join(' or ')}:\n${failures.join('\n')}\n${JSON.stringify(document).slice(0, 600)}`)
}
