/**
 * The JSON contract of the non-trace commands and of the language server's
 * own documents: the document each prints with `--json`, as a TypeScript type
 * and as a JSON Schema (draft-07). Like `traces.ts` it imports nothing, so the
 * VS Code extension bundles it as it is.
 *
 * | Command / request                | Document              | Schema                  |
 * |----------------------------------|-----------------------|-------------------------|
 * | route:list                       | RouteListJson         | routeListSchema         |
 * | list                             | CommandListJson       | commandListSchema       |
 * | migrate                          | MigrateJson           | migrateSchema           |
 * | migrate:status                   | MigrationStatusJson   | migrationStatusSchema   |
 * | migrate:rollback                 | RollbackJson          | rollbackSchema          |
 * | migrate:fresh                    | MigrateFreshJson      | migrateFreshSchema      |
 * | key:generate                     | KeyGenerateJson       | keyGenerateSchema       |
 * | LSP `svc/status`                 | ServerStatusJson      | serverStatusSchema      |
 *
 * Compatibility rule (as for traces): fields are only ever added.
 */

export type RouteMethodJson = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'ANY'

export interface RouteParamJson {
  name: string
  optional: boolean
  /** The constraint's source, as in `where()` (anchored: `^(?:\d+)$`), null when unconstrained. */
  pattern: string | null
}

/** One route of the compiled app (`route:list --json`, `storage/cache/routes.json`). */
export interface RouteJson {
  method: RouteMethodJson
  /** The full path (`/api/v1/posts/{id}`). */
  path: string
  params: RouteParamJson[]
  /** Middleware names, group middleware first (`auth:admin`, `throttle:60,1`, a function's name). */
  middleware: string[]
  /** The handler function's name (`anonymous` when it has none). */
  handler: string
  /** Where the route is defined, relative to the app folder; null for built-in routes (health, auth). */
  source: { file: string; line: number; column: number } | null
  /** The group prefix (`/v1`, `/v2/posts`), null outside groups. */
  group: string | null
  version: number | null
  /** Which schemas the route declares (`.body()`, `.query()`, `.response()`). */
  schemas: RouteSchemasJson
}

export interface RouteSchemasJson {
  body: boolean
  query: boolean
  response: boolean
}

export interface RouteListJson {
  routes: RouteJson[]
}

export interface CommandListJson {
  commands: Array<{ name: string; group: string; description: string; aliases: string[] }>
}

export interface MigrateJson {
  ran: string[]
}

export interface MigrationStatusJson {
  migrations: Array<{ name: string; status: 'ran' | 'pending'; batch: number | null; ran_at: string | null }>
}

export interface RollbackJson {
  rolled_back: string[]
}

export interface MigrateFreshJson {
  ran: string[]
  seeded: string[]
}

export interface KeyGenerateJson {
  /** Only with --show: the secret itself. */
  key: string | null
  written: string | null
}

/** What the language server knows about the workspace (`svc/status`). */
export interface ServerStatusJson {
  /** `ready`: the app was found; `no_app`: E_NO_APP; `error`: the app was found but does not load. */
  state: 'ready' | 'no_app' | 'error'
  /** Absolute folders, null without an app. */
  app: { root: string; appDir: string; storageDir: string } | null
  /** The CLI error (code, message, hint) behind `no_app` or `error`. */
  error: { code: string; message: string; hint: string | null } | null
  /** Routes in the table (0 when it cannot be built). */
  routes: number
  /** Traces in the store, null when it cannot be read (no store yet, or no trace commands). */
  traces: number | null
  /** The svc version the server runs. */
  version: string
}

// ---------------------------------------------------------------------------
// JSON Schemas (draft-07)
// ---------------------------------------------------------------------------

export type RouteJsonSchema = { [key: string]: unknown }

const str: RouteJsonSchema = { type: 'string' }
const int: RouteJsonSchema = { type: 'integer' }
const bool: RouteJsonSchema = { type: 'boolean' }
const nullable = (schema: RouteJsonSchema): RouteJsonSchema => ({ anyOf: [schema, { type: 'null' }] })
const arrayOf = (items: RouteJsonSchema): RouteJsonSchema => ({ type: 'array', items })
const enumOf = (...values: string[]): RouteJsonSchema => ({ type: 'string', enum: values })
const object = (properties: Record<string, RouteJsonSchema>): RouteJsonSchema => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
})

export const routeSchema = object({
  method: enumOf('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'ANY'),
  path: { type: 'string', pattern: '^/' },
  params: arrayOf(object({ name: str, optional: bool, pattern: nullable(str) })),
  middleware: arrayOf(str),
  handler: str,
  source: nullable(object({ file: str, line: int, column: int })),
  group: nullable(str),
  version: nullable(int),
  schemas: object({ body: bool, query: bool, response: bool }),
})

export const routeListSchema = object({ routes: arrayOf(routeSchema) })

export const commandListSchema = object({
  commands: arrayOf(object({ name: str, group: str, description: str, aliases: arrayOf(str) })),
})

export const migrateSchema = object({ ran: arrayOf(str) })
export const migrationStatusSchema = object({
  migrations: arrayOf(object({ name: str, status: enumOf('ran', 'pending'), batch: nullable(int), ran_at: nullable(str) })),
})
export const rollbackSchema = object({ rolled_back: arrayOf(str) })
export const migrateFreshSchema = object({ ran: arrayOf(str), seeded: arrayOf(str) })
export const keyGenerateSchema = object({ key: nullable(str), written: nullable(str) })

export const serverStatusSchema = object({
  state: enumOf('ready', 'no_app', 'error'),
  app: nullable(object({ root: str, appDir: str, storageDir: str })),
  error: nullable(object({ code: str, message: str, hint: nullable(str) })),
  routes: int,
  traces: nullable(int),
  version: str,
})

/** Every schema by the command that prints it. */
export const commandSchemas = {
  list: commandListSchema,
  'route:list': routeListSchema,
  migrate: migrateSchema,
  'migrate:status': migrationStatusSchema,
  'migrate:rollback': rollbackSchema,
  'migrate:fresh': migrateFreshSchema,
  'key:generate': keyGenerateSchema,
} as const satisfies Record<string, RouteJsonSchema>
