/**
 * `make:openapi` and `make:postman`: what they wrote and what they could not
 * express. Types only; fields are only ever added.
 */
import type { RouteMethodJson } from './routes.ts'

/** Something of a route the API description cannot say exactly (it is left out or approximated, never invented). */
export interface OpenApiWarningJson {
  method: RouteMethodJson
  /** The route's path as written (`/api/v1/posts/{slug}`). */
  path: string
  /** `body`, `query`, `response`: a declared schema; `path`: the route's path itself. */
  part: 'body' | 'query' | 'response' | 'path'
  /** `title`, `items[].name`; '' for the whole part. */
  field: string
  message: string
}

/** `make:openapi --json`. */
export interface MakeOpenApiJson {
  /** Files written, relative to the project folder (the document; with --with-swagger, the docs page). */
  written: string[]
  openapi: string
  /** Paths and operations in the document (an optional parameter gives two paths). */
  paths: number
  operations: number
  /** `components/schemas`, by name. */
  schemas: string[]
  warnings: OpenApiWarningJson[]
}

/** `make:postman --json`. */
export interface MakePostmanJson {
  /** The collection, relative to the project folder. */
  written: string[]
  /** Requests in the collection (the auth flow, the CRUD flows and one per operation). */
  requests: number
  /** Top-level folders, in order. */
  folders: string[]
  /** With --flow=crud: the resources given a create → read → list → update → delete flow (their collection paths). */
  flows: string[]
  /** The description's warnings, and resources that look like CRUD but cannot be run as a flow (and why). */
  warnings: OpenApiWarningJson[]
}
