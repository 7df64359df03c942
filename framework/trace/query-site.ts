/**
 * Where a traced SQL statement was sent from: the first stack frame in
 * application code, so that a trace's SQL list links each statement to its
 * line. The tracing budget allows no stack per statement, so:
 *
 * - a stack is captured only the first time a call site is seen, a call site
 *   being the route, the statement's text and how many times the request sent
 *   that text before, counted up to MAX_OCCURRENCES (the same text sent from
 *   two lines of one handler is two sites; the passes of an N+1 loop beyond
 *   the first few share one, so a long loop captures a bounded number of
 *   stacks once, not one per pass on every request);
 * - it is captured as the statement is sent, in the caller's synchronous
 *   stack (at the end, an unawaited `return c.db.all(...)` has left it), and
 *   turned into a location only when the writer builds the record, once per site.
 *
 * Later requests reuse the site and its location: a map lookup per statement.
 */
import type { TraceSourceLocation } from './record.ts'

/** Frames captured: the framework's own (the database handle, the recorder) come first. */
const STACK_DEPTH = 24
/** Sites kept per tracer; beyond it (statements with inlined values), the map starts again. */
const MAX_SITES = 5000
/** Sendings of one text in one request told apart; the later ones are a loop's passes, from one line. */
const MAX_OCCURRENCES = 16

type StackHolder = { stack?: unknown }

export class QuerySite {
  private holder: StackHolder | undefined
  private resolved: TraceSourceLocation | null | undefined

  constructor(holder: StackHolder) {
    this.holder = holder
  }

  /** The application frame, resolved on first use (formatting the stack is the costly part). */
  location(appFrame: (stack: string | undefined) => TraceSourceLocation | null): TraceSourceLocation | null {
    if (this.resolved === undefined) {
      const stack = this.holder?.stack
      this.resolved = appFrame(typeof stack === 'string' ? stack : undefined)
      this.holder = undefined
    }
    return this.resolved
  }
}

/** The sites a tracer has seen: route → statement text → one per occurrence in a request. */
export class QuerySites {
  private readonly byRoute = new Map<string, Map<string, QuerySite[]>>()
  private size = 0

  /** The site of the `occurrence`-th (from 0) sending of `sql` in a request of `route`; a stack is captured when it is new. */
  at(route: string | null, sql: string, occurrence: number): QuerySite {
    let statements = this.byRoute.get(route ?? '')
    if (statements === undefined) this.byRoute.set(route ?? '', (statements = new Map()))
    let sites = statements.get(sql)
    if (sites === undefined) statements.set(sql, (sites = []))
    const slot = Math.min(occurrence, MAX_OCCURRENCES - 1)
    let site = sites[slot]
    if (site === undefined) {
      if (this.size >= MAX_SITES) this.clear()
      site = sites[slot] = new QuerySite(captureStack(this.at))
      this.size++
    }
    return site
  }

  private clear(): void {
    this.byRoute.clear()
    this.size = 0
  }
}

function captureStack(below: (...args: never[]) => unknown): StackHolder {
  const holder: StackHolder = {}
  const errorClass = Error as ErrorConstructor & { stackTraceLimit?: number; captureStackTrace?: (target: object, below?: unknown) => void }
  const limit = errorClass.stackTraceLimit
  errorClass.stackTraceLimit = STACK_DEPTH
  try {
    // V8 and JavaScriptCore: the frames are kept and only formatted when `stack` is read.
    if (typeof errorClass.captureStackTrace === 'function') errorClass.captureStackTrace(holder, below)
    else holder.stack = new Error().stack
  } finally {
    errorClass.stackTraceLimit = limit
  }
  return holder
}
