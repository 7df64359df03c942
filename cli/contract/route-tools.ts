/**
 * `route:search` and `route:rules`: what a keyword finds among the routes,
 * and the request schemas the routes declare, as JSON Schema (the OpenAPI
 * 3.0 dialect: cli/schemas/to-json-schema.ts). Types only; fields are only
 * ever added.
 */
import type { SourceLocation } from '../../framework/router/types.ts'
import type { RouteJson, RouteMethodJson } from './routes.ts'

/** `route:search <keyword> --json`. */
export interface RouteSearchJson {
  keyword: string
  routes: RouteSearchMatchJson[]
}

export interface RouteSearchMatchJson extends RouteJson {
  /** The module the handler is imported from (read from the route file); null for inline handlers and built-in routes. */
  controller: RouteControllerJson | null
  /** What the keyword matched (case-insensitive), in this order. */
  matched: Array<'path' | 'handler' | 'middleware' | 'controller'>
}

export interface RouteControllerJson {
  /** `posts` for app/controllers/posts.ts; the object's name for `PostController.index`. */
  name: string
  /** Relative to the app folder. */
  file: string
}

/** A JSON Schema document (OpenAPI 3.0's dialect). */
export type JsonSchemaJson = { [keyword: string]: unknown }

/** `route:rules --json`: every route that declares a request schema. */
export interface RouteRulesJson {
  routes: RouteRulesEntryJson[]
  /** What could not be expressed in JSON Schema (a custom check, a cross-field rule): left out of the schemas above. */
  warnings: RouteRuleWarningJson[]
}

export interface RouteRulesEntryJson {
  method: RouteMethodJson
  path: string
  handler: string
  /** Relative to the app folder; null for built-in routes (auth). */
  source: SourceLocation | null
  /** The JSON body's schema (`.body()`), as a client sends it; null when none is declared or it could not be converted. */
  body: JsonSchemaJson | null
  /** The query string's schema (`.query()`), as a client sends it; null likewise. */
  query: JsonSchemaJson | null
}

export interface RouteRuleWarningJson {
  method: RouteMethodJson
  path: string
  part: 'body' | 'query'
  /** `title`, `items[].name`; '' for the whole body or query. */
  field: string
  message: string
}
