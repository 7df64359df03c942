/**
 * The hook a tracer plugs into. The framework calls `begin` for every request
 * (404, 405, OPTIONS and 500 included) and `end` with the final response; in
 * between, the request-scoped database handle and the middleware runner report
 * to the recorder `begin` returned. Nothing here is shared between requests.
 */
import type { Context } from '../context/context.ts'
import type { QueryRecord } from '../database/database.ts'

export interface MiddlewareTiming {
  name: string
  /** Milliseconds from the start of the request. */
  start_ms: number
  /** Including everything the middleware awaited (its `next()` among it). */
  duration_ms: number
  /** Whether it called `next()`: one that did not answered the request itself. */
  called_next: boolean
}

/** One listener `emit` ran (or handed to the queue) for an event. */
export interface ListenerTiming {
  name: string
  /** Handed to the listener queue (run later by a worker), not run during `emit`. */
  queued: boolean
  /** How long its `handle` ran; null for a queued one (what ran was the hand-off). */
  duration_ms: number | null
  /** The message of what it threw (or of the queue's refusal, or of a failure the sync driver ran into); null when it did not fail. */
  error: string | null
}

/** One `emit(event, c)` of a request: reported once its listeners are done (or one failed). */
export interface EventTiming {
  /** The event's class name. */
  name: string
  /** performance.now() when `emit` began. */
  startedAt: number
  /** Including every listener it ran and every hand-off to the queue. */
  duration_ms: number
  /** In the order they ran; one that threw is the last (the rest did not run); a queued one that failed under the sync driver did not throw. */
  listeners: ListenerTiming[]
}

export interface RequestRecorder {
  /** performance.now() when the request began. */
  readonly startedAt: number
  recordQuery(query: QueryRecord): void
  recordMiddleware(timing: MiddlewareTiming): void
  /** Called by `emit(event, c)` once the event's listeners are done; optional, as tracers before it did not have it. */
  recordEvent?(event: EventTiming): void
  /**
   * Called by `app.reject`: the runtime refused the request before the app
   * saw it (Node's HTTP parser), so its trace holds only what could be read
   * of it. Replay reads the mark instead of guessing from the record's shape.
   */
  recordRefusal?(): void
  /**
   * Called as a statement is sent, in its caller's stack; what it returns comes
   * back as the statement's `caller` (svc's tracer: the call site, for the line).
   */
  queryStarted?(sql: string): unknown
}

export interface Tracer {
  /** Returns undefined to leave this request untraced. */
  begin(c: Context): RequestRecorder | undefined
  /** Must not make the response wait: queue the record and return. */
  end(c: Context, response: Response, recorder: RequestRecorder): void
}
