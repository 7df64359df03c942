/**
 * What a handler or middleware receives: the request and everything svc knows
 * about it. One per request; nothing here is shared between requests.
 *
 * A handler's context is typed from its route: `Context<'/posts/{id}'>` has
 * `c.params.id: string`, and `Context<'/posts', { body: typeof PostInput }>`
 * has `await c.body()` typed as PostInput's output (the route declares
 * `.body(PostInput)`, which validates it before the handler runs).
 */
import type { StandardSchemaV1 } from '@standard-schema/spec'
import type { ConnInfo } from '../app/conn-info.ts'
import type { AppConfig } from '../config/config.ts'
import type { Database, QueryObserver } from '../database/database.ts'
import type { Mailer } from '../mail/index.ts'
import type { Queue } from '../queue/queue.ts'
import { readJsonBody } from '../http/read-json-body.ts'
import { jsonTextResponse, successEnvelopeText, type EnvelopeOptions } from '../http/response.ts'
import type { PathParams } from '../router/path-params.ts'
import type { RequestRecorder } from '../trace/recorder.ts'
import type { ValidationMessageFormatter } from '../validation/issues.ts'
import { validateWith } from '../validation/validate.ts'

/** The authenticated user, set by the `auth` middleware. Extend it by declaration merging. */
export interface AuthUser {
  id: number
  name: string
  email: string
  role: string
}

/**
 * What middleware hand to handlers in `c.state`. Empty here: each middleware
 * (or app) declares what it sets, by declaration merging, so reading it needs no cast.
 * @example
 * declare module 'svc' {
 *   interface ContextState { startedAt?: number }
 * }
 */
export interface ContextState {}

/** A matched route, as the trace and the tools name it. */
export interface MatchedRoute {
  method: string
  /** The pattern as written, with prefixes: `/api/v1/posts/{id}`. */
  path: string
}

export interface ExecutionContextLike {
  waitUntil(promise: Promise<unknown>): void
}

/** The schemas a route declares for its input (`.body(schema)`, `.query(schema)`), as types for its context. */
export interface InputSchemas {
  body?: StandardSchemaV1
  query?: StandardSchemaV1
}

/** `await c.body()`: the body schema's output when the route declares one, else the parsed JSON (`unknown`). */
export type BodyOf<Input extends InputSchemas> = Input extends { body: infer S extends StandardSchemaV1 } ? StandardSchemaV1.InferOutput<S> : unknown

/** `c.query`: the query schema's output when the route declares one, else the URL's `URLSearchParams`. */
export type QueryOf<Input extends InputSchemas> = Input extends { query: infer S extends StandardSchemaV1 } ? StandardSchemaV1.InferOutput<S> : URLSearchParams

export interface ContextInit {
  request: Request
  /** The request's URL, parsed; by default parsed from `request.url` when first asked for. */
  url?: URL
  traceId: string
  /** What the runtime adapter told about the connection. */
  connInfo?: ConnInfo
  ip: string | undefined
  config: AppConfig
  db: Database | undefined
  /** The app's queue (`createApp({ queue })`). */
  queue?: Queue
  /** The app's mailer (`createApp({ mailer })`). */
  mailer?: Mailer
  env: unknown
  executionCtx: ExecutionContextLike | undefined
  /** Words validation errors (`createApp({ validationMessage })`); svc's default style when absent. */
  validationMessage?: ValidationMessageFormatter
}

export class Context<Path extends string = string, Input extends InputSchemas = {}> {
  readonly request: Request
  readonly method: string
  /** The request path as in the URL (percent-encoded), e.g. `/api/v1/posts/42`. */
  readonly path: string
  readonly traceId: string
  /** The client address: the socket peer, or X-Forwarded-For when the peer is a trusted proxy. */
  readonly ip: string | undefined
  /** What the runtime adapter told about the connection (the socket peer, its parsed headers); see `CONN_INFO`. */
  readonly connInfo: ConnInfo | undefined
  readonly config: AppConfig
  /** Bindings of the runtime (Workers `env`); svc's own settings are in `config`. */
  readonly env: unknown
  readonly executionCtx: ExecutionContextLike | undefined
  /** Path parameters, typed from the route's path; an optional one that was not given is absent. */
  readonly params: PathParams<Path> = {} as PathParams<Path>
  /** The route that matched (set by the router). */
  readonly route: MatchedRoute | undefined
  user: AuthUser | undefined

  /** The error a handler or middleware threw, once it has been turned into a response (set by svc). */
  readonly error: unknown
  /** Set when the request is traced: queries and middleware timings are reported to it. */
  readonly recorder: RequestRecorder | undefined
  private readonly database: Database | undefined
  private readonly appQueue: Queue | undefined
  private readonly appMailer: Mailer | undefined
  private observedDatabase: Database | undefined
  private parsedBody: Promise<unknown> | undefined
  private validatedBody: Promise<unknown> | undefined
  private validatedQuery: unknown
  private parsedUrl: URL | undefined
  private stateRecord: ContextState | undefined
  private readonly messageFormat: ValidationMessageFormatter | undefined
  private boundMessage: ValidationMessageFormatter | undefined

  constructor(init: ContextInit) {
    this.request = init.request
    this.parsedUrl = init.url
    this.path = init.url?.pathname ?? canonicalPath(init.request.url) ?? this.url.pathname
    this.method = init.request.method
    this.traceId = init.traceId
    this.connInfo = init.connInfo
    this.ip = init.ip
    this.config = init.config
    this.env = init.env
    this.executionCtx = init.executionCtx
    this.database = init.db
    this.appQueue = init.queue
    this.appMailer = init.mailer
    this.messageFormat = init.validationMessage
  }

  /** The app's message function bound to this request (its language), made when first needed: most requests validate nothing. */
  private get validationMessage(): ValidationMessageFormatter | undefined {
    const format = this.messageFormat
    if (format === undefined) return undefined
    const request = this.request
    return (this.boundMessage ??= (issue) => format(issue, request))
  }

  /** What middleware hand to handlers; its fields are declared on `ContextState`. */
  get state(): ContextState {
    return (this.stateRecord ??= {})
  }

  get url(): URL {
    return (this.parsedUrl ??= new URL(this.request.url))
  }

  get headers(): Headers {
    return this.request.headers
  }

  /**
   * The query string: the validated object when the route declares `.query(schema)`,
   * else the URL's `URLSearchParams` (always at `c.url.searchParams`).
   */
  get query(): QueryOf<Input> {
    return (this.validatedQuery ?? this.url.searchParams) as QueryOf<Input>
  }

  /** The request-scoped database handle (every query through it is timed and traced). */
  get db(): Database {
    if (this.database === undefined) throw new Error('This app was created without a database')
    if (this.recorder === undefined) return this.database
    const recorder = this.recorder
    if (this.observedDatabase === undefined) {
      const observer: QueryObserver = (query) => recorder.recordQuery(query)
      if (recorder.queryStarted !== undefined) observer.started = (sql) => recorder.queryStarted!(sql)
      this.observedDatabase = this.database.withObserver(observer)
    }
    return this.observedDatabase
  }

  /**
   * The app's queue: `await c.queue.dispatch(job, payload)`. Dispatch after a
   * transaction commits, not inside it (see docs/queues.md).
   */
  get queue(): Queue {
    if (this.appQueue === undefined) throw new Error('This app was created without a queue (createApp({ queue }))')
    return this.appQueue
  }

  /** The app's mailer: `await c.mailer.send(welcomeMail.to(email, data))`. */
  get mailer(): Mailer {
    if (this.appMailer === undefined) throw new Error('This app was created without a mailer (createApp({ mailer }))')
    return this.appMailer
  }

  /**
   * The JSON body: validated by the route's `.body(schema)` when it declares
   * one (its output, typed), else parsed once. An empty body is `{}`;
   * malformed JSON answers 400, a body over the limit 413, a non-JSON content type 415.
   */
  body<T = BodyOf<Input>>(): Promise<T> {
    return (this.validatedBody ?? this.rawBody()) as Promise<T>
  }

  /** The body as `body()` parsed it, if anything asked for it (the tracer records it from here). */
  get parsedBodyIfRead(): Promise<unknown> | undefined {
    return this.parsedBody
  }

  /**
   * Validates the JSON body with any Standard Schema (valibot, zod, arktype...);
   * failures answer 422 with `errors: { field: [message] }`. For a check the
   * route cannot declare up front; a route's own body schema goes in `.body(schema)`.
   * @example const input = await c.validate(v.object({ title: v.string() }))
   */
  async validate<S extends StandardSchemaV1>(schema: S): Promise<StandardSchemaV1.InferOutput<S>> {
    return validateWith(schema, await this.rawBody(), 'body', this.validationMessage)
  }

  /** The success envelope as a Response: `{ success: true, message?, data, meta? }`. */
  json(data: unknown, options?: EnvelopeOptions): Response {
    if (options === undefined) return jsonTextResponse(successEnvelopeText(data), 200, undefined, this.traceId)
    return jsonTextResponse(successEnvelopeText(data, options.message, options.meta), options.status ?? 200, options.headers, this.traceId)
  }

  private rawBody(): Promise<unknown> {
    return (this.parsedBody ??= readJsonBody(this.request, this.config.bodyLimit))
  }
}

/** The fields of a context only svc writes: read-only to handlers and middleware. */
interface ContextInternals {
  params: Record<string, string>
  route: MatchedRoute | undefined
  error: unknown
  recorder: RequestRecorder | undefined
  validatedBody: Promise<unknown> | undefined
  validatedQuery: unknown
  validationMessage: ValidationMessageFormatter | undefined
  parsedBody: Promise<unknown> | undefined
}

const internals = (c: Context<string, InputSchemas>): ContextInternals => c as unknown as ContextInternals

/** The router: the matched route and its decoded parameters. */
export function setMatch(c: Context<string, InputSchemas>, params: Record<string, string>, route: MatchedRoute): void {
  const target = internals(c)
  target.params = params
  target.route = route
}

/** The error handler: what was thrown, once turned into a response. */
export function setError(c: Context<string, InputSchemas>, error: unknown): void {
  internals(c).error = error
}

export function setRecorder(c: Context<string, InputSchemas>, recorder: RequestRecorder | undefined): void {
  internals(c).recorder = recorder
}

/** A route's input validation: what `c.body()` and `c.query` answer from now on. */
export function setValidatedInput(c: Context<string, InputSchemas>, input: { body?: unknown; query?: unknown }): void {
  const target = internals(c)
  if ('body' in input) target.validatedBody = Promise.resolve(input.body)
  if ('query' in input) target.validatedQuery = input.query
}

/** The parsed JSON body, as sent (not the validated output). */
export function rawBodyOf(c: Context<string, InputSchemas>): Promise<unknown> {
  return (c as unknown as { rawBody(): Promise<unknown> }).rawBody()
}

export function validationMessageOf(c: Context<string, InputSchemas>): ValidationMessageFormatter | undefined {
  return internals(c).validationMessage
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
