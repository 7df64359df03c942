/** Builds the JSON envelope responses every part of svc answers with. */
import { isHttpError } from './http-error.ts'

export const TRACE_HEADER = 'X-Service-Trace-Id'
const JSON_TYPE = 'application/json; charset=utf-8'

export interface EnvelopeOptions {
  status?: number
  message?: string
  headers?: Record<string, string>
  /** Beside `data` in the envelope: what describes it (a list's pagination: `{ page, per_page, total, last_page }`). */
  meta?: Record<string, unknown>
}

export interface SuccessEnvelope<T> {
  success: true
  message?: string
  data: T
  meta?: Record<string, unknown>
}

export interface ErrorEnvelope {
  success: false
  error: string
  code: number
  [detail: string]: unknown
}

// What svc knows of each JSON response it built, kept on the object itself (cheaper per request than a
// WeakMap): its text, so the tracer records it without cloning the stream, and the trace id it carries.
const JSON_TEXT = Symbol('svc.jsonText')
const TRACE_ID = Symbol('svc.traceId')
const JSON_HEADERS = Symbol('svc.jsonHeaders')
interface KnownResponse {
  [JSON_TEXT]?: string
  [TRACE_ID]?: string
  [JSON_HEADERS]?: Record<string, string>
}

export function jsonResponse(body: unknown, status: number, headers: Record<string, string>): Response {
  return jsonTextResponse(JSON.stringify(body), status, headers)
}

/**
 * `jsonResponse` for a body already serialised (`text` must be JSON); a
 * `traceId` given is set as the trace header, after (over) `headers`.
 */
export function jsonTextResponse(text: string, status: number, headers: Record<string, string> | undefined, traceId?: string): Response {
  const init: Record<string, string> = { 'content-type': JSON_TYPE }
  for (const name in headers) init[name] = headers[name]!
  if (traceId !== undefined) init[TRACE_HEADER] = traceId
  return new (jsonResponseClass())(text, { status, headers: init }, init[TRACE_HEADER])
}

type ResponseClass = typeof Response
type JsonResponseClass = new (text: string, init: { status: number; headers: Record<string, string> }, traceId: string | undefined) => Response
let responseBase: ResponseClass | undefined
let knownJsonResponse: JsonResponseClass | undefined

/**
 * The class of the responses `jsonResponse` builds: the runtime's Response
 * (the Node adapter installs its own lighter one, hence looked up each time),
 * except that reading `headers` forgets the header record svc kept. Whoever
 * reads `headers` may change them (`RateLimit-*`, `Server-Timing`...), and
 * the tracer must record what went on the wire: it then reads `headers` too.
 * What svc knows is set in the constructor, so every such response has one shape.
 */
function jsonResponseClass(): JsonResponseClass {
  const base = globalThis.Response
  if (base !== responseBase || knownJsonResponse === undefined) {
    responseBase = base
    knownJsonResponse = class SvcJsonResponse extends base implements KnownResponse {
      [JSON_TEXT]: string;
      [TRACE_ID]: string | undefined;
      [JSON_HEADERS]: Record<string, string> | undefined

      constructor(text: string, init: { status: number; headers: Record<string, string> }, traceId: string | undefined) {
        super(text, init)
        this[JSON_TEXT] = text
        this[TRACE_ID] = traceId
        this[JSON_HEADERS] = init.headers
      }

      override get headers(): Headers {
        this[JSON_HEADERS] = undefined
        return super.headers
      }
    }
  }
  return knownJsonResponse
}

/** The body text of a response built by `jsonResponse`, undefined for any other. */
export function knownResponseText(response: Response): string | undefined {
  return (response as Response & KnownResponse)[JSON_TEXT]
}

/**
 * The headers a response built by `jsonResponse` was given (the tracer reads
 * them here: `response.headers` would materialise a Headers object on Node),
 * as long as nothing read `response.headers` since (and so may have changed
 * them); undefined otherwise, and for any other response.
 */
export function knownResponseHeaders(response: Response): Readonly<Record<string, string>> | undefined {
  return (response as Response & KnownResponse)[JSON_HEADERS]
}

/**
 * Whether the response carries this trace id. Reading `headers` of a response
 * svc built itself is avoided: on Node that would materialise its Headers
 * object, on every request, only to read back what svc wrote.
 */
export function hasTraceId(response: Response, traceId: string): boolean {
  return (response as Response & KnownResponse)[TRACE_ID] === traceId || response.headers.get(TRACE_HEADER) === traceId
}

export function successEnvelope<T>(data: T, message?: string, meta?: Record<string, unknown>): SuccessEnvelope<T> {
  const envelope: SuccessEnvelope<T> = message === undefined ? { success: true, data } : { success: true, message, data }
  if (meta !== undefined) envelope.meta = meta
  return envelope
}

/**
 * The success envelope's JSON text, written around `JSON.stringify(data)`
 * without building the envelope object first (the same text as
 * `JSON.stringify(successEnvelope(data, message, meta))`).
 */
export function successEnvelopeText(data: unknown, message?: string, meta?: Record<string, unknown>): string {
  const dataText = JSON.stringify(data)
  // undefined (or a function): the key is left out, as JSON.stringify does.
  if (dataText === undefined) return JSON.stringify(successEnvelope(data, message, meta))
  const head = message === undefined ? '{"success":true,"data":' : `{"success":true,"message":${JSON.stringify(message)},"data":`
  if (meta === undefined) return `${head}${dataText}}`
  const metaText = JSON.stringify(meta)
  return metaText === undefined ? `${head}${dataText}}` : `${head}${dataText},"meta":${metaText}}`
}

export function errorEnvelope(status: number, error: string, details?: Record<string, unknown>): ErrorEnvelope {
  return { ...details, success: false, error, code: status }
}

/**
 * Turns anything thrown into an error envelope. Internals of unknown errors
 * are shown only when `debug` is on: a production 500 says nothing more.
 */
export function errorResponse(error: unknown, headers: Record<string, string>, debug: boolean): Response {
  if (isHttpError(error)) {
    return jsonResponse(errorEnvelope(error.status, error.message, error.details), error.status, {
      ...error.headers,
      ...headers,
    })
  }
  const details =
    debug && error instanceof Error
      ? { exception: { class: error.name, message: error.message, stack: error.stack?.split('\n') } }
      : undefined
  return jsonResponse(errorEnvelope(500, 'Internal Server Error', details), 500, headers)
}

/**
 * The answer to a HEAD: the GET's response without its body. Where svc knows
 * the GET's length (the JSON text it wrote) it is sent as Content-Length, and
 * one the response declares is kept: RFC 9110 §9.3.2 allows the GET's length
 * or none, and left to them Deno and Bun would write the length of the null
 * body, 0 (see `unmeasuredHeadAnswer`).
 */
export function headAnswer(response: Response): Response {
  const text = knownResponseText(response)
  const headers = new Headers(response.headers)
  if (text !== undefined) headers.set('content-length', String(new TextEncoder().encode(text).byteLength))
  return new Response(null, { status: response.status, statusText: response.statusText, headers })
}

// The statuses a Response may not have a body with (the constructor throws): they have no length to state.
const NULL_BODY_STATUSES = new Set([204, 205, 304])

/**
 * A HEAD answer as the Deno and Bun adapters hand it on: without a
 * Content-Length (a handler's own Response, whose length svc cannot know
 * without reading it), a body-less response would go out with
 * `Content-Length: 0`, saying the GET's body is empty. A stream instead
 * makes them send no length (Bun: `Transfer-Encoding: chunked`, as for a
 * streamed GET); the runtime sends no body for a HEAD either way. Bun
 * measures a stream that ends before its first chunk as 0 too: it gets one
 * empty chunk.
 */
export function unmeasuredHeadAnswer(answer: Response | Promise<Response>): Response | Promise<Response> {
  return answer instanceof Promise ? answer.then(withoutStatedLength) : withoutStatedLength(answer)
}

function withoutStatedLength(response: Response): Response {
  if (response.body !== null || NULL_BODY_STATUSES.has(response.status) || response.headers.has('content-length')) return response
  const unmeasured = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new Uint8Array(0))
      controller.close()
    },
  })
  return new Response(unmeasured, { status: response.status, statusText: response.statusText, headers: response.headers })
}

/**
 * Sets headers on a response the app did not build itself. Responses from
 * `fetch()` or `Response.redirect()` have immutable headers; those are copied.
 */
export function withHeaders(response: Response, headers: Record<string, string>): Response {
  let target = response
  try {
    for (const name in headers) target.headers.set(name, headers[name]!)
  } catch {
    target = new Response(response.body, response)
    for (const name in headers) target.headers.set(name, headers[name]!)
  }
  return target
}
