/** Starts bench servers in child processes, pinned to a CPU when taskset exists. */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import type { ServerSpec } from '../scenarios.ts'
import { READY } from '../servers/types.ts'

const SERVER_SCRIPT = fileURLToPath(new URL('../server-process.ts', import.meta.url))
const ROOT = fileURLToPath(new URL('../..', import.meta.url))

export interface RunningBenchServer {
  spec: ServerSpec
  port: number
  url: string
  headers: Record<string, string>
  pid: number
  /** The server process's CPU time so far (user + system), in microseconds. */
  cpuTime(): Promise<number>
  /** The server process's peak resident memory so far, in bytes. */
  maxRss(): Promise<number>
  stop(): Promise<void>
}

/** Generous: a test run on a busy 2-CPU machine has taken 30 s to start the password-hashing server. */
const START_TIMEOUT_MS = 90_000

export const hasTaskset = spawnSync('taskset', ['-V'], { stdio: 'ignore' }).status === 0

/** Pins a running process (e.g. this one, the load generator) to CPUs: `0`, or a list such as `0-1`. */
export function pinProcess(pid: number, cpus: number | string): boolean {
  return hasTaskset && spawnSync('taskset', ['-cp', String(cpus), String(pid)], { stdio: 'ignore' }).status === 0
}

export function serverKey(spec: ServerSpec): string {
  return JSON.stringify([spec.factory, spec.options ?? {}, spec.process ?? null])
}

export async function startServer(spec: ServerSpec, cpu: number | undefined): Promise<RunningBenchServer> {
  const nodeArgs = ['--import', 'jiti/register', SERVER_SCRIPT, JSON.stringify(spec)]
  const [command, args] =
    cpu !== undefined && hasTaskset
      ? ['taskset', ['-c', String(cpu), process.execPath, ...nodeArgs]]
      : [process.execPath, nodeArgs]
  const child = spawn(command, args, { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] })
  const lines = createInterface({ input: child.stdout! })
  const cpuWaiters: Array<(microseconds: number) => void> = []
  const memWaiters: Array<(bytes: number) => void> = []
  lines.on('line', (line) => {
    if (line.startsWith('CPU ')) cpuWaiters.shift()?.(Number(line.slice(4)))
    if (line.startsWith('MEM ')) memWaiters.shift()?.(Number(line.slice(4)))
  })
  const ready = await new Promise<{ port: number; headers: Record<string, string> }>((resolve, reject) => {
    // A server that never says it listens is stopped: left running, it would keep its parent (the bench, a test run) alive.
    const timer = setTimeout(() => {
      reject(new Error(`bench server ${serverKey(spec)} did not start within ${START_TIMEOUT_MS / 1000} s`))
      void stopChild(child)
    }, START_TIMEOUT_MS)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`bench server ${serverKey(spec)} exited with code ${code} before listening`))
    })
    lines.on('line', (line) => {
      if (!line.startsWith(READY)) return
      clearTimeout(timer)
      resolve(JSON.parse(line.slice(READY.length)))
    })
  })
  child.removeAllListeners('exit')
  return {
    spec,
    port: ready.port,
    url: `http://127.0.0.1:${ready.port}`,
    headers: ready.headers,
    pid: child.pid!,
    cpuTime: () =>
      new Promise((resolve) => {
        cpuWaiters.push(resolve)
        child.stdin!.write('cpu\n')
      }),
    maxRss: () =>
      new Promise((resolve) => {
        memWaiters.push(resolve)
        child.stdin!.write('mem\n')
      }),
    stop: () => stopChild(child),
  }
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000)
    child.once('exit', () => {
      clearTimeout(timer)
      resolve()
    })
    child.kill('SIGTERM')
  })
}
