/**
 * Progress of a long-running command (migrations, deploy, regression replay,
 * benchmark, queue work), shown the way its reader can use it:
 *
 * - on a terminal (stderr is a TTY): one live line on stderr, redrawn in
 *   place (a bar and a count when the total is known, a spinner otherwise,
 *   the current step and the time spent), erased when the work ends. Lines
 *   the command prints meanwhile (`print`, `note`) appear above it.
 * - anywhere else (a pipe, a log file, CI): plain lines, never a control
 *   character: one per step (`[2/6] name`), and for many small items a count
 *   at most every `plainIntervalMs` (`Replaying: 120/400`).
 *
 * The live line goes to stderr, so `--json` keeps stdout one document.
 *
 * @example
 * const progress = createProgress(io, { label: 'Migrating', total: pending.length })
 * for (const name of pending) {
 *   progress.step(name)
 *   await run(name)
 *   progress.tick()
 *   progress.print(`Migrated: ${name}`)
 * }
 * progress.done()
 */
import type { CommandIO, OutputStream } from './io.ts'
import { colors } from './print.ts'

export interface ProgressOptions {
  /** What is being done, one or two words: `Migrating`, `Replaying traces`. */
  label: string
  /** How many items there are, when known: a bar and `n/total`. */
  total?: number
  /** Plain output: at most one count line per this many milliseconds (default 2000); step lines are always printed. */
  plainIntervalMs?: number
  /** The clock (tests). */
  now?: () => number
  /** Live line: redraw at most this often, and spin this often while a step runs (default 80 ms; 0: no timer). */
  frameMs?: number
}

export interface Progress {
  /** A step begins: its name is shown on the live line, or printed as a plain line. */
  step(name: string): void
  /** `by` more items are done (default 1). */
  tick(by?: number): void
  /** A line of the command's own output (stdout), printed above the live line. */
  print(line: string): void
  /** A note for the reader (stderr), printed above the live line. */
  note(line: string): void
  /** The work ended (whatever the outcome): the live line is erased and the timer stopped. Idempotent. */
  done(): void
}

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏']
const BAR_WIDTH = 20
const CLEAR_LINE = '\r\x1b[2K'

export function createProgress(io: CommandIO, options: ProgressOptions): Progress {
  return io.stderr.isTTY === true ? liveProgress(io, options) : plainProgress(io, options)
}

function plainProgress(io: CommandIO, options: ProgressOptions): Progress {
  const now = options.now ?? Date.now
  const interval = options.plainIntervalMs ?? 2000
  let count = 0
  let steps = 0
  let lastCountLine = now()
  let countShown = 0
  let ended = false
  const counted = () => (options.total === undefined ? String(count) : `${count}/${options.total}`)
  return {
    step(name) {
      steps += 1
      const position = options.total === undefined ? '' : `[${Math.min(steps, options.total)}/${options.total}] `
      io.stderr.write(`${position}${name}\n`)
    },
    tick(by = 1) {
      count += by
      // Steps already say where the work is; a bare count only for work without steps, and seldom.
      if (steps === 0 && now() - lastCountLine >= interval) {
        lastCountLine = now()
        countShown = count
        io.stderr.write(`${options.label}: ${counted()}\n`)
      }
    },
    print: (line) => void io.stdout.write(`${line}\n`),
    note: (line) => void io.stderr.write(`${line}\n`),
    done() {
      if (ended) return
      ended = true
      if (steps === 0 && count > 0 && countShown !== count) io.stderr.write(`${options.label}: ${counted()}\n`)
    },
  }
}

function liveProgress(io: CommandIO, options: ProgressOptions): Progress {
  const now = options.now ?? Date.now
  const frameMs = options.frameMs ?? 80
  const color = colors(io, io.stderr)
  const started = now()
  let count = 0
  let current = ''
  let frame = 0
  let shown = false
  let lastDraw = -Infinity
  let ended = false
  const timer = frameMs > 0 ? setInterval(() => draw(true), frameMs) : undefined
  timer?.unref?.()

  function render(): string {
    const parts = [color.cyan(SPINNER[frame % SPINNER.length]!), color.bold(options.label)]
    if (options.total !== undefined && options.total > 0) {
      const share = Math.min(1, count / options.total)
      const filled = Math.round(share * BAR_WIDTH)
      parts.push(`${'█'.repeat(filled)}${color.dim('░'.repeat(BAR_WIDTH - filled))}`, `${count}/${options.total}`)
    } else if (count > 0) {
      parts.push(String(count))
    }
    if (current !== '') parts.push(current)
    parts.push(color.dim(`${((now() - started) / 1000).toFixed(1)}s`))
    return fit(parts.join(' '), columnsOf(io.stderr))
  }

  function draw(force = false): void {
    if (ended) return
    if (!force && now() - lastDraw < frameMs) return
    lastDraw = now()
    frame += 1
    io.stderr.write(`${CLEAR_LINE}${render()}`)
    shown = true
  }

  function clear(): void {
    if (shown) io.stderr.write(CLEAR_LINE)
    shown = false
  }

  function above(stream: OutputStream, line: string): void {
    clear()
    stream.write(`${line}\n`)
    draw(true)
  }

  return {
    step(name) {
      current = name
      draw(true)
    },
    tick(by = 1) {
      count += by
      draw()
    },
    print: (line) => above(io.stdout, line),
    note: (line) => above(io.stderr, line),
    done() {
      if (ended) return
      clear()
      ended = true
      if (timer !== undefined) clearInterval(timer)
    },
  }
}

function columnsOf(stream: OutputStream): number {
  const columns = (stream as { columns?: number }).columns
  return typeof columns === 'number' && columns > 10 ? columns : 80
}

/** Cuts a line to the terminal's width (a wrapped live line could not be redrawn in place); escapes do not count. */
function fit(line: string, columns: number): string {
  let visible = 0
  let result = ''
  for (let i = 0; i < line.length; i++) {
    if (line[i] === '\x1b') {
      const end = line.indexOf('m', i)
      result += line.slice(i, end + 1)
      i = end
      continue
    }
    if (visible >= columns - 1) continue
    result += line[i]
    visible += 1
  }
  return result
}
