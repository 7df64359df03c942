/**
 * What happens to an error that is not an HttpError (a bug, a failed
 * dependency): the app's `onError` hook sees it first and may answer; without
 * a hook, it is logged once to stderr with its trace id (and its stack, except
 * in production), and the client gets a plain 500. A 500 is never silent.
 */
import { setError, type Context } from '../context/context.ts'
import { isHttpError, ValidationError, type HttpError } from '../http/http-error.ts'
import { errorResponse, TRACE_HEADER } from '../http/response.ts'
import { wordedForRequest } from '../validation/field-failure.ts'

/**
 * Called for every error that is not an `HttpError`, with the request's
 * context and trace id. Return an `HttpError` to answer with its error
 * envelope (`{ success: false, error, code, ...details }` and its headers),
 * or any Response to answer with it; return nothing for svc's 500 envelope.
 * It replaces the default log line: log what you need.
 * @example
 * createApp({ onError: (error, c, traceId) => { reporter.capture(error, { traceId, path: c.path }) } })
 */
export type ErrorHook = (error: unknown, c: Context, traceId: string) => HookAnswer | Promise<HookAnswer>

/** What a hook may answer: a Response as it is, an HttpError as its envelope, nothing for the 500. */
type HookAnswer = Response | HttpError | undefined | void

/** Turns what a layer threw into its response (and records it on the context for the tracer). */
export type ErrorAnswer = (c: Context, error: unknown) => Response | Promise<Response>

export function errorAnswer(onError: ErrorHook | undefined): ErrorAnswer {
  return function answerError(c, error) {
    setError(c, error)
    if (isHttpError(error)) return envelope(c, error)
    if (onError === undefined) {
      logUnexpectedError(error, c)
      return envelope(c, error)
    }
    try {
      const answer = onError(error, c, c.traceId)
      if (answer instanceof Promise) {
        return answer.then(
          (given) => hookAnswer(c, error, given),
          (hookError: unknown) => hookFailed(c, error, hookError),
        )
      }
      return hookAnswer(c, error, answer)
    } catch (hookError) {
      return hookFailed(c, error, hookError)
    }
  }
}

/**
 * The default report of an unexpected error: one line to stderr naming the
 * request and its trace id (`svc log:trace <id>` shows the rest), with the
 * stack below it unless APP_ENV is production.
 */
export function logUnexpectedError(error: unknown, c: Context): void {
  const production = c.config.env === 'production'
  const what = error instanceof Error ? (production || error.stack === undefined ? `${error.name}: ${error.message}` : error.stack) : String(error)
  console.error(`[svc] 500 ${c.method} ${c.path} (trace ${c.traceId}): ${what}`)
}

function envelope(c: Context, error: unknown): Response {
  // Here the request, and so its language, is known: a 422 built without it is worded now.
  const answered = error instanceof ValidationError ? wordedForRequest(c, error) : error
  return errorResponse(answered, { [TRACE_HEADER]: c.traceId }, c.config.debug)
}

/**
 * The hook's answer as a Response. An HttpError becomes its error envelope: an
 * app that answers "try again" for a failed dependency gets `success: false`,
 * where `c.json(...)` with an error status would still say `success: true`.
 */
function hookAnswer(c: Context, error: unknown, answer: HookAnswer): Response {
  if (answer instanceof Response) return answer
  return envelope(c, isHttpError(answer) ? answer : error)
}

/** The hook itself threw: both errors are logged, the client gets the 500. */
function hookFailed(c: Context, error: unknown, hookError: unknown): Response {
  logUnexpectedError(error, c)
  console.error(`[svc] onError failed for trace ${c.traceId}: ${hookError instanceof Error ? (hookError.stack ?? hookError.message) : String(hookError)}`)
  return envelope(c, error)
}
