import type { Context } from '../context/context.ts'

/** A route handler: returns a Response, or a value that becomes `{ success: true, data }`. */
export type Handler = (c: Context) => unknown

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
}
