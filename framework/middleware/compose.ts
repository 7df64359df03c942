/**
 * Runs middleware as an onion around an endpoint. Anything thrown at any
 * layer becomes an error response right there, so outer middleware (timing,
 * CORS, traces) always see a Response, and `c.error` keeps what was thrown.
 */
import { errorAnswer, type ErrorAnswer } from '../app/on-error.ts'
import type { Context } from '../context/context.ts'
import { HttpError } from '../http/http-error.ts'
import type { Handler, Middleware } from '../router/types.ts'

/**
 * Answers synchronously when nothing on the way was asynchronous (a handler
 * returning a plain value, no middleware): the Node adapter then writes the
 * response without a promise. Await it like a promise either way.
 */
export type Pipeline = (c: Context) => Response | Promise<Response>

const DEFAULT_ANSWER = errorAnswer(undefined)

/** `fail` answers what a layer threw: the app's (see on-error.ts), by default the envelope and a log line for a 500. */
export function compose(middleware: readonly Middleware[], endpoint: Handler, fail: ErrorAnswer = DEFAULT_ANSWER): Pipeline {
  const settle = async (c: Context, pending: PromiseLike<unknown>): Promise<Response> => {
    try {
      return toResponse(await pending, c)
    } catch (error) {
      return fail(c, error)
    }
  }

  const runLayer = async (c: Context, index: number): Promise<Response> => {
    try {
      const layer = middleware[index]!
      let called = false
      const next = () => {
        if (called) return Promise.reject(new Error(`Middleware ${layer.name || 'anonymous'} called next() twice`))
        called = true
        const response = run(c, index + 1)
        return response instanceof Promise ? response : Promise.resolve(response)
      }
      const recorder = c.recorder
      let response: Response
      if (recorder === undefined) response = await layer(c, next)
      else {
        const started = performance.now()
        try {
          response = await layer(c, next)
        } finally {
          // `called_next`: a middleware that did not pass the request on answered it (api:why names it, stack or not).
          recorder.recordMiddleware({
            name: layer.name || 'anonymous',
            start_ms: round(started - recorder.startedAt),
            duration_ms: round(performance.now() - started),
            called_next: called,
          })
        }
      }
      if (!(response instanceof Response)) {
        throw new Error(`Middleware ${layer.name || 'anonymous'} returned no Response (did it forget \`return next()\`?)`)
      }
      return response
    } catch (error) {
      return fail(c, error)
    }
  }

  const run = (c: Context, index: number): Response | Promise<Response> => {
    if (index < middleware.length) return runLayer(c, index)
    try {
      const result = endpoint(c)
      return isThenable(result) ? settle(c, result) : toResponse(result, c)
    } catch (error) {
      return fail(c, error)
    }
  }

  return (c) => run(c, 0)
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function'
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000
}

/** A handler's return value as a Response: a value becomes `{ success: true, data }`. */
export function toResponse(result: unknown, c: Context): Response {
  if (result instanceof Response) return result
  return c.json(result === undefined ? null : result)
}

export function notFound(): HttpError {
  return new HttpError(404, 'Not Found')
}
