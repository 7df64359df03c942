/**
 * What `queue:work` prints for people: one line per finished job (time,
 * worker, job, queue, outcome, duration), coloured on a terminal; the
 * worker's events cross from child processes as plain objects (WireEvent).
 */
import type { JobInfo, WorkerEvent } from '../../framework/index.ts'
import type { Colors } from '../output/print.ts'
import { terminalText } from '../output/terminal-text.ts'

/** A worker event as it crosses a process boundary (errors reduced to their message). */
export type WireEvent =
  | { type: 'started'; job: JobInfo; timeoutMs: number }
  | {
      type: 'finished'
      job: JobInfo
      outcome: 'done' | 'retry' | 'failed' | 'lost'
      durationMs: number
      error?: string
      retryInMs?: number
    }
  | { type: 'error'; error: string }

export function toWire(event: WorkerEvent): WireEvent {
  if (event.type === 'started') return event
  if (event.type === 'error') return { type: 'error', error: event.error.message }
  const { job, outcome, durationMs, error, retryInMs } = event.result
  return { type: 'finished', job, outcome, durationMs, ...(error ? { error: error.message } : {}), ...(retryInMs !== undefined ? { retryInMs } : {}) }
}

const LABEL = { done: 'DONE', retry: 'RETRY', failed: 'FAIL', lost: 'LOST' } as const

/** The line for an event, or undefined for events that print nothing (a job starting). */
export function progressLine(event: WireEvent, color: Colors, at: Date, worker?: number): string | undefined {
  const stamp = color.dim(at.toISOString().replace('T', ' ').slice(0, 19))
  const who = worker === undefined ? '' : `${color.dim(`[worker ${worker}]`)} `
  // What the job and its error say is the app's text (a message may hold a NUL or an escape sequence): escaped, so that it stays one inert line.
  if (event.type === 'error') return `${stamp} ${who}${color.yellow('WAIT')} the queue failed: ${terminalText(event.error)} (trying again)`
  if (event.type === 'started') return undefined
  const { job, outcome } = event
  const label = LABEL[outcome]
  const painted = outcome === 'done' ? color.green(label) : outcome === 'retry' ? color.yellow(label) : color.red(label)
  const attempt = job.maxAttempts > 1 ? ` attempt ${job.attempt}/${job.maxAttempts}` : ''
  const subject = job.subject === undefined ? '' : ` ${color.bold(terminalText(job.subject))}`
  const base = `${stamp} ${who}${color.bold(terminalText(job.name))}${subject} #${job.id} ${color.dim(`(${terminalText(job.queue)}${attempt})`)} ${painted} ${formatMs(event.durationMs)}`
  if (outcome === 'done') return base
  const retry = event.retryInMs === undefined ? '' : `, next run in ${formatMs(event.retryInMs)}`
  return `${base}: ${terminalText(event.error ?? '')}${retry}`
}

function formatMs(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 0)} s`
}
