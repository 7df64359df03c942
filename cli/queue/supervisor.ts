/**
 * `queue:work --workers=N`: N child processes, each one worker (child.ts),
 * watched by this one. A child that crashes (or that this parent kills because
 * its job overran the timeout with its event loop stuck) is started again,
 * after a growing pause if it keeps crashing at once; its job runs again after
 * the lease. A child that stopped after `--max-jobs` or a timed-out job is
 * started again at once; one that found the queue empty (`--stop-when-empty`)
 * is not. A stop signal is passed on: every child finishes its current job.
 */
import { fork, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { WorkerStop } from '../../framework/index.ts'
import type { CommandIO } from '../output/io.ts'
import { colors, printLine } from '../output/print.ts'
import { CHILD_ENV, type ChildMessage } from './child.ts'
import { progressLine } from './progress.ts'

export interface SuperviseOptions {
  workers: number
  /** The child's command line after the binary (`queue:work --queue ...`). */
  childArgs: string[]
  io: CommandIO
  /** Extra time a job gets past its timeout before its child is killed (ms); default 5000 + 10 % of the timeout. */
  killGraceMs?: (timeoutMs: number) => number
}

export interface SuperviseSummary {
  started: number
  restarted: number
  processed: number
  failed: number
  /** With --stop-when-empty: the delayed jobs the last worker to find no due job saw still waiting for their time. */
  delayed: number
}

interface Slot {
  index: number
  child: ChildProcess | undefined
  startedAt: number
  crashes: number
  killTimer: ReturnType<typeof setTimeout> | undefined
}

const QUICK_CRASH_MS = 10_000
const MAX_RESTART_PAUSE_MS = 30_000

/** How a forked child runs svc: the built binary, or the sources through jiti (tests). */
export function childEntry(): { modulePath: string; execArgv: string[] } {
  const here = import.meta.url
  if (here.endsWith('.ts')) return { modulePath: fileURLToPath(new URL('../bin.ts', here)), execArgv: ['--import', 'jiti/register'] }
  return { modulePath: fileURLToPath(new URL('../bin.js', here)), execArgv: [] }
}

export function supervise(options: SuperviseOptions): Promise<SuperviseSummary> {
  const { io } = options
  const color = colors(io)
  const entry = childEntry()
  const grace = options.killGraceMs ?? ((timeoutMs: number) => 5000 + timeoutMs / 10)
  const summary: SuperviseSummary = { started: 0, restarted: 0, processed: 0, failed: 0, delayed: 0 }
  const slots: Slot[] = Array.from({ length: options.workers }, (_, i) => ({ index: i + 1, child: undefined, startedAt: 0, crashes: 0, killTimer: undefined }))
  const pending = new Set<ReturnType<typeof setTimeout>>()
  let stopping = io.signal.aborted

  return new Promise((resolve) => {
    const settleIfDone = () => {
      if (pending.size === 0 && slots.every((slot) => slot.child === undefined)) resolve(summary)
    }

    const start = (slot: Slot) => {
      const child = fork(entry.modulePath, options.childArgs, {
        execArgv: entry.execArgv,
        env: { ...io.env, [CHILD_ENV]: '1' },
        cwd: io.cwd,
        stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      })
      slot.child = child
      slot.startedAt = Date.now()
      summary.started++
      let stoppedFor: WorkerStop | undefined
      printLine(io, color.dim(`worker ${slot.index} started (pid ${child.pid})`))
      relay(child.stdout!, (line) => printLine(io, `${color.dim(`[worker ${slot.index}]`)} ${line}`))
      relay(child.stderr!, (line) => io.stderr.write(`[worker ${slot.index}] ${line}\n`))

      child.on('message', (message: ChildMessage) => {
        if (message.type === 'stopped') {
          stoppedFor = message.summary.reason
          // The last worker to stop for want of a due job counted last: its count is the one left.
          if (stoppedFor === 'empty') summary.delayed = message.summary.delayed ?? 0
          return
        }
        const event = message.event
        if (event.type === 'started') {
          clearTimeout(slot.killTimer)
          slot.killTimer = setTimeout(() => {
            printLine(io, color.red(`worker ${slot.index} (pid ${child.pid}) is still running ${event.job.name} #${event.job.id} past its timeout: killing it`))
            child.kill('SIGKILL')
          }, event.timeoutMs + grace(event.timeoutMs))
        } else if (event.type === 'finished') {
          clearTimeout(slot.killTimer)
          summary.processed++
          if (event.outcome === 'failed') summary.failed++
        }
        const line = progressLine(event, color, new Date(), slot.index)
        if (line !== undefined) printLine(io, line)
      })

      child.once('exit', (code, signal) => {
        clearTimeout(slot.killTimer)
        slot.child = undefined
        const crashed = stoppedFor === undefined
        const how = signal !== null ? `was killed (${signal})` : `exited with code ${code}`
        if (stopping || stoppedFor === 'stopped' || stoppedFor === 'empty') {
          if (crashed) printLine(io, color.yellow(`worker ${slot.index} (pid ${child.pid}) ${how}`))
          settleIfDone()
          return
        }
        let pause = 0
        if (crashed) {
          slot.crashes = Date.now() - slot.startedAt < QUICK_CRASH_MS ? slot.crashes + 1 : 1
          pause = slot.crashes <= 1 ? 0 : Math.min(MAX_RESTART_PAUSE_MS, 500 * 2 ** (slot.crashes - 2))
          printLine(io, color.yellow(`worker ${slot.index} (pid ${child.pid}) ${how}; restarting${pause > 0 ? ` in ${pause} ms` : ''}`))
        } else {
          slot.crashes = 0
          printLine(io, color.dim(`worker ${slot.index} stopped (${stoppedFor}); restarting`))
        }
        summary.restarted++
        const timer = setTimeout(() => {
          pending.delete(timer)
          if (stopping) return settleIfDone()
          start(slot)
        }, pause)
        pending.add(timer)
      })
    }

    io.signal.addEventListener(
      'abort',
      () => {
        stopping = true
        printLine(io, color.dim('stopping: every worker finishes its current job...'))
        for (const timer of pending) clearTimeout(timer)
        pending.clear()
        for (const slot of slots) slot.child?.kill('SIGTERM')
        settleIfDone()
      },
      { once: true },
    )

    if (stopping) return resolve(summary)
    for (const slot of slots) start(slot)
  })
}

function relay(stream: NodeJS.ReadableStream, line: (text: string) => void): void {
  let buffer = ''
  stream.setEncoding('utf8')
  stream.on('data', (chunk: string) => {
    buffer += chunk
    let newline
    while ((newline = buffer.indexOf('\n')) !== -1) {
      line(buffer.slice(0, newline))
      buffer = buffer.slice(newline + 1)
    }
  })
  stream.on('end', () => {
    if (buffer !== '') line(buffer)
  })
}
