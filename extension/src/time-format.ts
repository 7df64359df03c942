/**
 * How every svc view writes a time: the Traces view (rows and tooltips), the
 * trace detail, the request page's history and the dashboard's chart. One way
 * for all: 24-hour and numbers only (`14:05:09`, `2026-11-28 14:05`), not the
 * locale's `2:05:09 PM`. The extension host's locale is Node's and a page's is
 * Chromium's, which need not agree, so "the locale's" would itself be two
 * formats; numbers read the same in every language and match the CLI's
 * `2026-11-28 14:05:09`. Times are on the clock of the machine the extension
 * host runs on: a page is given that time zone (`timeZone`), so that a remote
 * window (SSH, a container, code-server) shows a trace at the same time in the
 * Traces view and in its detail. No VS Code import: both sides use it.
 */

export interface TimeFormatOptions {
  /** An IANA time zone (`Europe/Paris`); undefined: this process's own. */
  timeZone?: string | undefined
}

interface ClockParts {
  year: string
  month: string
  day: string
  hour: string
  minute: string
  second: string
}

const formatters = new Map<string, Intl.DateTimeFormat>()

/** A formatter per zone, made once: `en-US` with `h23` only to get the numbers, which are all that is used. */
function formatterFor(timeZone: string | undefined): Intl.DateTimeFormat {
  const key = timeZone ?? ''
  let formatter = formatters.get(key)
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      numberingSystem: 'latn',
    })
    formatters.set(key, formatter)
  }
  return formatter
}

/** A zone Intl does not know falls back to this process's own (a time shown, not an exception in a view). */
function clockParts(at: Date, timeZone: string | undefined): ClockParts {
  let formatter: Intl.DateTimeFormat
  try {
    formatter = formatterFor(timeZone)
  } catch {
    formatter = formatterFor(undefined)
  }
  const parts: Record<string, string> = {}
  for (const part of formatter.formatToParts(at)) parts[part.type] = part.value
  return { year: parts.year ?? '', month: parts.month ?? '', day: parts.day ?? '', hour: parts.hour ?? '', minute: parts.minute ?? '', second: parts.second ?? '' }
}

const date = (parts: ClockParts) => `${parts.year}-${parts.month}-${parts.day}`

/** `2026-11-28` (the dashboard's axis for day buckets). */
export function formatDate(at: string | number, options: TimeFormatOptions = {}): string {
  return date(clockParts(new Date(at), options.timeZone))
}

/** `2026-11-28 14:05:09`: a time in full (the trace detail, tooltips). */
export function formatDateTime(at: string | number, options: TimeFormatOptions = {}): string {
  const parts = clockParts(new Date(at), options.timeZone)
  return `${date(parts)} ${parts.hour}:${parts.minute}:${parts.second}`
}

/**
 * A time in a list: `14:05:09` today, `2026-11-28 14:05` before (the Traces
 * view's rows, the request history). Not an age ("57s ago"): a row is rendered
 * once and re-rendered only when the list changes, so an age would stay "57s
 * ago" for as long as the editor is idle.
 */
export function formatTime(at: string | number, now = Date.now(), options: TimeFormatOptions = {}): string {
  return listTime(at, now, options, true)
}

/** A time to the minute: `14:05` today, `2026-11-28 14:05` before (the dashboard's axis, whose buckets are minutes or more: `:00` seconds would be noise). */
export function formatMinute(at: string | number, now = Date.now(), options: TimeFormatOptions = {}): string {
  return listTime(at, now, options, false)
}

function listTime(at: string | number, now: number, options: TimeFormatOptions, seconds: boolean): string {
  const parts = clockParts(new Date(at), options.timeZone)
  const clock = `${parts.hour}:${parts.minute}`
  if (date(parts) !== date(clockParts(new Date(now), options.timeZone))) return `${date(parts)} ${clock}`
  return seconds ? `${clock}:${parts.second}` : clock
}
