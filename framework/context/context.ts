/**
 * What a handler or middleware receives: the request and everything svc knows
 * about it. One per request; nothing here is shared between requests.
 */
import type { StandardSchemaV1 } from '@standard-schema/spec'
import type { AppConfig } from '../config/config.ts'
import type { Database } from '../database/database.ts'
import { readJsonBody } from '../http/read-json-body.ts'
import { jsonResponse, successEnvelope, TRACE_HEADER, type EnvelopeOptions } from '../http/response.ts'
import type { RequestRecorder } from '../trace/recorder.ts'
import { validateWith } from '../validation/validate.ts'

/** The authenticated user, set by the `auth` middleware. Extend it by declaration merging. */
export interface AuthUser {
  id: number
  name: string
  email: string
  role: string
}

/** A matched route, as the trace and the tools name it. */
export interface MatchedRoute {
  method: string
  /** The pattern as written, with prefixes: `/api/v1/posts/{id}`. */
  path: string
}

export interface ExecutionContextLike {
  waitUntil(promise: Promise<unknown>): void
}

export interface ContextInit {
  request: Request
  /** The request's URL, parsed; by default parsed from `request.url` when first asked for. */
  url?: URL
  traceId: string
  ip: string | undefined
  config: AppConfig
  db: Database | undefined
  env: unknown
  executionCtx: ExecutionContextLike | undefined
}

export class Context {
  readonly request: Request
  readonly method: string
  /** The request path as in the URL (percent-encoded), e.g. `/api/v1/posts/42`. */
  readonly path: string
  readonly traceId: string
  /** The client address: the socket peer, or X-Forwarded-For when the peer is a trusted proxy. */
  readonly ip: string | undefined
  readonly config: AppConfig
  /** Bindings of the runtime (Workers `env`); svc's own settings are in `config`. */
  readonly env: unknown
  readonly executionCtx: ExecutionContextLike | undefined
  /** Path parameters; an optional one that was not given is absent. */
  params: Record<string, string> = {}
  route: MatchedRoute | undefined
  user: AuthUser | undefined

  /** The error a handler or middleware threw, once it has been turned into a response. */
  error: unknown
  /** Set when the request is traced: queries and middleware timings are reported to it. */
  recorder: RequestRecorder | undefined
  private database: Database | undefined
  private observedDatabase: Database | undefined
  private parsedBody: Promise<unknown> | undefined
  private parsedUrl: URL | undefined
  private stateRecord: Record<string, unknown> | undefined

  constructor(init: ContextInit) {
    this.request = init.request
    this.parsedUrl = init.url
    this.path = init.url?.pathname ?? canonicalPath(init.request.url) ?? this.url.pathname
    this.method = init.request.method
    this.traceId = init.traceId
    this.ip = init.ip
    this.config = init.config
    this.env = init.env
    this.executionCtx = init.executionCtx
    this.database = init.db
  }

  /** A place for middleware to hand values to handlers. */
  get state(): Record<string, unknown> {
    return (this.stateRecord ??= {})
  }

  get url(): URL {
    return (this.parsedUrl ??= new URL(this.request.url))
  }

  get headers(): Headers {
    return this.request.headers
  }

  get query(): URLSearchParams {
    return this.url.searchParams
  }

  /** The request-scoped database handle (every query through it is timed and traced). */
  get db(): Database {
    if (this.database === undefined) throw new Error('This app was created without a database')
    if (this.recorder === undefined) return this.database
    const recorder = this.recorder
    this.observedDatabase ??= this.database.withObserver((query) => recorder.recordQuery(query))
    return this.observedDatabase
  }

  /**
   * The JSON body, parsed once. An empty body is `{}`; malformed JSON answers
   * 400, a body over the limit 413, a non-JSON content type 415.
   */
  body<T = unknown>(): Promise<T> {
    this.parsedBody ??= readJsonBody(this.request, this.config.bodyLimit)
    return this.parsedBody as Promise<T>
  }

  /** The body as `body()` parsed it, if anything asked for it (the tracer records it from here). */
  get parsedBodyIfRead(): Promise<unknown> | undefined {
    return this.parsedBody
  }

  /**
   * Validates the JSON body with any Standard Schema (valibot, zod, arktype...);
   * failures answer 422 with `errors: { field: [messages] }`.
   * @example const input = await c.validate(v.object({ title: v.string() }))
   */
  async validate<S extends StandardSchemaV1>(schema: S): Promise<StandardSchemaV1.InferOutput<S>> {
    return validateWith(schema, await this.body())
  }

  /** The success envelope as a Response: `{ success: true, message?, data }`. */
  json(data: unknown, options?: EnvelopeOptions): Response {
    const headers = options?.headers === undefined ? { [TRACE_HEADER]: this.traceId } : { ...options.headers, [TRACE_HEADER]: this.traceId }
    return jsonResponse(successEnvelope(data, options?.message), options?.status ?? 200, headers)
  }
}

// Characters a URL path keeps as they are (RFC 3986 pchar and "/"), "%" included: new URL() leaves "%xx" alone.
const PLAIN = new Uint8Array(128)
for (const char of "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:@/%") PLAIN[char.charCodeAt(0)] = 1

/**
 * The path of a request URL without parsing it (most requests need no URL
 * object at all), when that path is already what `new URL()` would give:
 * plain characters and no segment starting with "." or "%2e" (which could be
 * a dot segment). Undefined otherwise, and the URL is parsed.
 */
function canonicalPath(url: string): string | undefined {
  const authority = url.indexOf('://')
  if (authority === -1) return undefined
  let start = authority + 3
  while (start < url.length && url.charCodeAt(start) !== 47 /* / */) {
    const code = url.charCodeAt(start++)
    if (code === 63 /* ? */ || code === 35 /* # */) return undefined
  }
  if (start === url.length) return undefined
  let end = start
  for (; end < url.length; end++) {
    const code = url.charCodeAt(end)
    if (code === 63 || code === 35) break
    if (code > 127 || PLAIN[code] === 0) return undefined
    if (code === 47 && end + 1 < url.length) {
      const next = url.charCodeAt(end + 1)
      if (next === 46 /* . */ || (next === 37 /* % */ && url.charCodeAt(end + 2) === 50 && (url.charCodeAt(end + 3) | 32) === 101)) return undefined
    }
  }
  return url.slice(start, end)
}
