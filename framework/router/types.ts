import type { StandardSchemaV1 } from '@standard-schema/spec'
import type { Context, InputSchemas } from '../context/context.ts'

/**
 * A route handler: returns a Response, or a value that becomes `{ success: true, data }`.
 * Its context is typed from the route: `Handler<'/posts/{id}'>` reads `c.params.id` as a string.
 * (Declared as a method so that a handler written for a plain `Context` fits any route.)
 */
export type Handler<Path extends string = string, Input extends InputSchemas = {}> = {
  handle(c: Context<Path, Input>): unknown
}['handle']

export type Next = () => Promise<Response>

/** Runs around the handler (onion): may answer early, or change what `next()` returned. */
export type Middleware = (c: Context, next: Next) => Response | Promise<Response>

/** A middleware function, or an alias string such as `auth:admin` or `throttle:60,1`. */
export type MiddlewareSpec = string | Middleware

export const ROUTE_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const
export type RouteMethod = (typeof ROUTE_METHODS)[number] | 'ANY'

export interface SourceLocation {
  file: string
  line: number
  column: number
}

export interface RouteParam {
  name: string
  optional: boolean
  /** The constraint's source, as in `where()`. */
  pattern: string | null
}

/** The schemas a route declares: `.body(schema)`, `.query(schema)`, `.response(schema)`. */
export interface RouteSchemas {
  /** The JSON body, validated before the handler (422 when it fails). */
  body?: StandardSchemaV1
  /** The query string (as an object: a key given twice is a list), validated before the handler. */
  query?: StandardSchemaV1
  /** What the handler answers in `data`: documentation (OpenAPI), not checked at run time. */
  response?: StandardSchemaV1
}

/**
 * What a route documents about its answers, for the API description (svc
 * make:openapi); nothing here is checked at run time. Declared with
 * `.response(schema, { status, envelope })` and `.errors({ 404: 'Post not found' })`.
 */
export interface RouteResponses {
  /** The success status: 200 unless declared (a 204 has no body). */
  status: number
  /** True: the body is svc's envelope with the response schema as `data`; false: the schema is the whole body. */
  envelope: boolean
  /** Error answers the handler itself gives (status => when), beside those svc knows from the middleware and schemas. */
  errors: Readonly<Record<number, string>>
  /** The success answer's media type when it is not JSON (`text/html`: a page the handler returns as a `Response`); the schema is then the whole body. */
  contentType?: string
}

/** The options of `.response(schema, options)`. */
export interface ResponseOptions {
  /** The success status the handler answers with (`c.json(data, { status: 201 })`); 200 by default. */
  status?: number
  /** False when the handler answers the schema itself rather than the envelope's `data` (a JWKS, a file index). */
  envelope?: boolean
  /**
   * The media type of the success answer when it is not JSON (`text/html` for a page): the
   * handler returns a `Response` of that type, and the schema (`v.string()`) is its whole body.
   */
  contentType?: string
}

/** One route as written, before the app compiles it. */
export interface RouteRecord {
  method: RouteMethod
  /** Path inside its definition (group prefixes applied, the `/api` prefix not yet). */
  path: string
  handler: Handler
  middleware: MiddlewareSpec[]
  where: Map<string, RegExp>
  group: string | null
  version: number | null
  schemas: RouteSchemas
  responses: RouteResponses
  /** Where the route was defined, read lazily from this error's stack. */
  definedAt: Error
}

/** The machine-readable description of a compiled route (`route:list --json`, the route cache, OpenAPI). */
export interface RouteDescription {
  method: RouteMethod
  path: string
  params: RouteParam[]
  middleware: string[]
  handler: string
  source: SourceLocation | null
  group: string | null
  version: number | null
  /**
   * The schema objects the route declares (null where it declares none), for
   * in-process tools: OpenAPI converts them (valibot: @valibot/to-json-schema).
   * `route:list --json` says only which ones exist.
   */
  schemas: { body: StandardSchemaV1 | null; query: StandardSchemaV1 | null; response: StandardSchemaV1 | null }
  /** The success status and the handler's own error answers, as declared (in-process tools only, like `schemas`). */
  responses: RouteResponses
}
