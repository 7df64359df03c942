/**
 * Progress of a long-running command (benchmark, `t --loop`, regression
 * replay), on stderr so that stdout stays the result. On a terminal it is one
 * line redrawn in place (`[####······] 3/12 GET /api/v1/posts`) and wiped at
 * the end; otherwise (a pipe, CI, a log file) it is plain lines: one per item
 * (`[3/12] GET /api/v1/posts`), and for counted steps one at every tenth.
 *
 * @example
 * const progress = startProgress(io, { total: routes.length, label: 'benchmark' })
 * for (const route of routes) { progress.item(route.path); await measure(route) }
 * progress.finish()
 */
import type { CommandIO } from './io.ts'

export interface Progress {
  /** The next item starts (counts one): its name is shown. */
  item(name: string): void
  /** One more step done (of `total`), without a name of its own. */
  tick(): void
  /** Wipes the terminal line (plain output keeps its lines). */
  finish(): void
}

export interface ProgressOptions {
  total: number
  /** What is being done: `benchmark`, `GET /api/v1/posts x 200`. */
  label: string
  /** Redraws at most this often on a terminal (default 50 ms); plain output is not timed. */
  redrawMs?: number
}

const BAR_WIDTH = 20

export function startProgress(io: CommandIO, options: ProgressOptions): Progress {
  const total = Math.max(0, options.total)
  const stream = io.stderr
  const terminal = stream.isTTY === true
  const redrawMs = options.redrawMs ?? 50
  let done = 0
  let current = ''
  let drawnAt = -Infinity
  let drawn = false
  let lastTenth = 0

  const line = () => {
    const filled = total === 0 ? BAR_WIDTH : Math.round((Math.min(done, total) / total) * BAR_WIDTH)
    return `${options.label} [${'#'.repeat(filled)}${'·'.repeat(BAR_WIDTH - filled)}] ${done}/${total}${current === '' ? '' : ` ${current}`}`
  }
  const draw = (force: boolean) => {
    const now = performance.now()
    if (!force && now - drawnAt < redrawMs) return
    drawnAt = now
    drawn = true
    stream.write(`\r\x1b[2K${line()}`)
  }

  return {
    item(name) {
      done++
      current = name
      if (terminal) draw(true)
      else stream.write(`${options.label} [${done}/${total}] ${name}\n`)
    },
    tick() {
      done++
      if (terminal) return draw(done === total)
      const tenth = total === 0 ? 10 : Math.floor((done / total) * 10)
      if (tenth > lastTenth) {
        lastTenth = tenth
        stream.write(`${options.label}: ${done}/${total}\n`)
      }
    },
    finish() {
      if (terminal && drawn) stream.write('\r\x1b[2K')
    },
  }
}
