/**
 * Child processes in tests: one that says `ready`, waits for `go` on stdin
 * (so that two start their work at the same moment) and prints one JSON
 * report; and stopping a server child (SIGTERM, SIGKILL if it lingers).
 */
import { spawn, type ChildProcess } from 'node:child_process'

export interface ReportingChild<R> {
  /** Resolves once the child printed `ready`. */
  ready: Promise<void>
  /** The child's JSON report (its second line); rejects when it exits non-zero, with its stderr. */
  done: Promise<R>
  /** Tells the child to start its work. */
  go(): void
}

/** `node <args>`, speaking the ready / go / report protocol above. */
export function startReportingChild<R>(args: string[], label: string): ReportingChild<R> {
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  let onReady: () => void
  const ready = new Promise<void>((resolve) => (onReady = resolve))
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk
    if (stdout.startsWith('ready\n')) onReady()
  })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const done = new Promise<R>((resolve, reject) => {
    child.once('close', (code) => {
      if (code !== 0) return reject(new Error(`${label} exited ${code}: ${stderr}`))
      resolve(JSON.parse(stdout.split('\n')[1]!) as R)
    })
  })
  return { ready, done, go: () => void child.stdin.write('go\n') }
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the child has exited. */
export function stopChild(child: ChildProcess, graceMs = 15_000): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve()
  return new Promise((resolvePromise) => {
    const killer = setTimeout(() => child.kill('SIGKILL'), graceMs)
    child.on('exit', () => {
      clearTimeout(killer)
      resolvePromise()
    })
    child.kill('SIGTERM')
  })
}

/**
 * Resolves with the first match of `pattern` in the child's stdout and stderr (a server's "listening on <url>"),
 * and a reader of everything it printed; rejects, the child killed, when it exits first or after `timeoutMs`.
 */
export function waitForOutput(child: ChildProcess, pattern: RegExp, label: string, timeoutMs: number): Promise<{ match: RegExpExecArray; output: () => string }> {
  let output = ''
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => fail(new Error(`${label} did not start in ${timeoutMs / 1000} s:\n${output}`)), timeoutMs)
    function fail(error: Error) {
      clearTimeout(timer)
      child.kill('SIGKILL')
      reject(error)
    }
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const match = pattern.exec(output)
      if (match) {
        clearTimeout(timer)
        resolvePromise({ match, output: () => output })
      }
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', onData)
    child.on('exit', (code) => fail(new Error(`${label} exited (${code}) before listening:\n${output}`)))
  })
}
