/**
 * A supervisor of `svc serve` worker processes sharing one port, through
 * node:cluster: the supervisor holds the listening socket and hands each
 * connection to a worker, so a port never closes while workers come and go.
 * `svc serve:prod` runs N workers and replaces one that dies; `svc live` runs
 * one and replaces it when a file changes.
 *
 * - Reload: one worker at a time, a new one is started, and only once it
 *   listens is the old one asked to leave (drain or stop, see `handover`):
 *   it finishes its in-flight requests and exits. A new worker that fails to start
 *   (a syntax error) stops the reload; the old ones keep serving.
 * - Stop: every worker gets SIGTERM, finishes its in-flight requests and
 *   exits; after `stopTimeoutMs` whatever is left is killed.
 * - Workers' output reaches the command's IO line by line (the worker's own
 *   "listening" line is the supervisor's to say, with the shared port).
 */
import cluster, { type Worker } from 'node:cluster'
import type { AddressInfo } from 'node:net'
import { createInterface } from 'node:readline'
import type { Readable } from 'node:stream'
import type { CommandIO } from '../output/io.ts'
import { printLine, printNote } from '../output/print.ts'
import { svcBinPath } from './svc-binary.ts'
import { BYE_MESSAGE, CLOSED_MESSAGE, DRAIN_MESSAGE, SUPERVISED_ENV } from './worker.ts'

export interface WorkerClusterOptions {
  io: CommandIO
  /** How many workers serve at once. */
  size: number
  /** A worker's `svc` command line (`serve --port <port> ...`), given the port to ask for. */
  args(port: number): string[]
  /** The port asked for (0: the first worker's free port, kept for every later one). */
  port: number
  /** The folder workers run in. */
  cwd: string
  /** Replace a worker that dies (serve:prod). `live` waits for the next change instead. */
  replaceCrashed: boolean
  /** Killed after this long when they have not stopped (ms). */
  stopTimeoutMs?: number
  /** Print `worker N listening (pid P)` for each worker that starts (serve:prod; live says it its own way). */
  announce?: boolean
  /**
   * How a replaced worker leaves: `drain` (serve:prod) lets its idle
   * keep-alive connections run out, so no client loses a request, at the
   * price of a few stale answers on them; `stop` (live) closes them at once,
   * so that the next request runs the new code.
   */
  handover?: 'drain' | 'stop'
}

export interface WorkerExit {
  code: number | null
  signal: string | null
}

interface Member {
  id: number
  worker: Worker
  pid: number
  listening: boolean
  /** Asked to drain or stop: its exit is expected. */
  leaving: boolean
  exit: Promise<WorkerExit>
}

/** A worker that exited before it listened (its error is in the output already). */
export class WorkerStartError extends Error {
  readonly exit: WorkerExit
  constructor(id: number, exit: WorkerExit) {
    super(`worker ${id} exited before it listened (${describeExit(exit)})`)
    this.name = 'WorkerStartError'
    this.exit = exit
  }
}

/** The worker's own line that the supervisor replaces with its own. */
const SUPERVISOR_SAYS = /^svc listening on /

export class WorkerCluster {
  readonly #options: WorkerClusterOptions
  readonly #members = new Set<Member>()
  #nextId = 1
  #port: number
  /**
   * The port the workers alive now were given. The supervisor keys its
   * listening socket by the port asked for: a worker joining them must ask
   * for the same (0 stays 0); once none is left, the next asks for the
   * port learned, so that it keeps its number.
   */
  #portAsked: number
  #stopping = false
  #reloading: Promise<boolean> | undefined
  #reloadAgain = false
  #recentCrashes: number[] = []
  #replacement: ReturnType<typeof setTimeout> | undefined

  constructor(options: WorkerClusterOptions) {
    this.#options = options
    this.#port = options.port
    this.#portAsked = options.port
  }

  /** The port the workers share (known once the first one listens). */
  get port(): number {
    return this.#port
  }

  /** The process ids of the workers serving now (not those draining). */
  get pids(): number[] {
    return [...this.#members].filter((member) => member.listening && !member.leaving).map((member) => member.pid)
  }

  /** Starts the workers (the first alone, to learn a free port); rejects when one fails to start, stopping the others. */
  async start(): Promise<void> {
    try {
      await this.#spawn()
      await Promise.all(Array.from({ length: this.#options.size - 1 }, () => this.#spawn()))
    } catch (error) {
      await this.stop()
      throw error
    }
  }

  /**
   * Replaces every worker, one at a time (see the module doc). Resolves with
   * false when a new worker failed to start (the remaining old ones keep
   * serving). A reload asked for during one runs once more after it.
   */
  reload(): Promise<boolean> {
    if (this.#reloading !== undefined) {
      this.#reloadAgain = true
      return this.#reloading
    }
    this.#reloading = (async () => {
      let ok: boolean
      do {
        this.#reloadAgain = false
        ok = await this.#rollOnce()
      } while (this.#reloadAgain && !this.#stopping)
      return ok
    })().finally(() => (this.#reloading = undefined))
    return this.#reloading
  }

  /** Every worker finishes its in-flight requests and exits. */
  async stop(): Promise<void> {
    this.#stopping = true
    clearTimeout(this.#replacement)
    const members = [...this.#members]
    for (const member of members) {
      if (member.leaving) continue
      member.leaving = true
      member.worker.process.kill('SIGTERM')
    }
    const deadline = setTimeout(() => {
      for (const member of this.#members) member.worker.process.kill('SIGKILL')
    }, this.#options.stopTimeoutMs ?? 30_000)
    await Promise.all(members.map((member) => member.exit))
    clearTimeout(deadline)
  }

  async #rollOnce(): Promise<boolean> {
    const old = [...this.#members].filter((member) => !member.leaving)
    if (old.length === 0) {
      // Nothing serving (the app did not start last time): start afresh.
      try {
        await this.start()
        this.#stopping = false
        return true
      } catch {
        this.#stopping = false
        return false
      }
    }
    for (const member of old) {
      if (this.#stopping) return false
      try {
        await this.#spawn()
      } catch {
        return false
      }
      this.#retire(member)
    }
    return true
  }

  #retire(member: Member): void {
    member.leaving = true
    try {
      if (this.#options.handover === 'stop') member.worker.process.kill('SIGTERM')
      else member.worker.send(DRAIN_MESSAGE)
    } catch {
      member.worker.process.kill('SIGTERM') // its channel is gone: stop it the plain way
    }
    const deadline = setTimeout(() => member.worker.process.kill('SIGKILL'), this.#options.stopTimeoutMs ?? 30_000)
    void member.exit.then(() => clearTimeout(deadline))
  }

  #spawn(): Promise<Member> {
    const { io, cwd } = this.#options
    if (![...this.#members].some((member) => member.listening && !member.leaving)) this.#portAsked = this.#port
    cluster.setupPrimary({ exec: svcBinPath(), args: this.#options.args(this.#portAsked), execArgv: [], silent: true, cwd })
    const worker = cluster.fork(workerEnv(io.env))
    const member: Member = {
      id: this.#nextId++,
      worker,
      pid: worker.process.pid ?? 0,
      listening: false,
      leaving: false,
      exit: new Promise((resolve) => worker.once('exit', (code: number | null, signal: string | null) => resolve({ code, signal }))),
    }
    this.#members.add(member)
    // Its server closed: the answer reaches it after every connection handed to it before (server/worker.ts, leaveCluster).
    worker.on('message', (message: unknown) => {
      if (message !== CLOSED_MESSAGE) return
      try {
        worker.send(BYE_MESSAGE)
      } catch {
        // gone already
      }
    })
    forwardLines(worker.process.stdout, (line) => SUPERVISOR_SAYS.test(line) || printLine(io, line))
    forwardLines(worker.process.stderr, (line) => SUPERVISOR_SAYS.test(line) || printNote(io, line))
    void member.exit.then((exit) => this.#exited(member, exit))
    return new Promise((resolve, reject) => {
      worker.once('listening', (address: AddressInfo) => {
        member.listening = true
        if (this.#port === 0) this.#port = address.port
        if (this.#options.announce !== false) printLine(io, `worker ${member.id} listening (pid ${member.pid})`)
        resolve(member)
      })
      void member.exit.then((exit) => {
        if (!member.listening) reject(new WorkerStartError(member.id, exit))
      })
    })
  }

  #exited(member: Member, exit: WorkerExit): void {
    this.#members.delete(member)
    if (member.leaving || this.#stopping || !member.listening) return
    const { io } = this.#options
    printNote(io, `worker ${member.id} (pid ${member.pid}) died (${describeExit(exit)})${this.#options.replaceCrashed ? '; starting a new one' : ''}`)
    if (this.#options.replaceCrashed) this.#replace()
  }

  /** Starts a replacement, sooner the first times; a worker that keeps dying is retried at most every 30 s. */
  #replace(): void {
    const now = Date.now()
    this.#recentCrashes = [...this.#recentCrashes.filter((time) => now - time < 60_000), now]
    const delay = this.#recentCrashes.length <= 3 ? 0 : Math.min(30_000, 1000 * 2 ** (this.#recentCrashes.length - 4))
    this.#replacement = setTimeout(() => {
      if (this.#stopping) return
      this.#spawn().catch(() => {
        if (!this.#stopping) this.#replace()
      })
    }, delay)
  }
}

export function describeExit(exit: WorkerExit): string {
  return exit.signal !== null ? `signal ${exit.signal}` : `exit code ${exit.code}`
}

/**
 * The worker's environment is the command's (tests hand commands their own);
 * cluster adds the process's on top, so variables the command's environment
 * lacks are blanked (a blank value counts as unset everywhere in svc).
 */
function workerEnv(env: CommandIO['env']): Record<string, string> {
  const result: Record<string, string> = {}
  for (const name of Object.keys(process.env)) result[name] = ''
  for (const [name, value] of Object.entries(env)) if (value !== undefined) result[name] = value
  result[SUPERVISED_ENV] = '1'
  return result
}

function forwardLines(stream: Readable | null | undefined, write: (line: string) => unknown): void {
  if (stream == null) return
  createInterface({ input: stream, crlfDelay: Infinity }).on('line', write)
}
