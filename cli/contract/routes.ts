/**
 * The JSON contract of the non-trace commands and of the language server's
 * own documents: the document each prints with `--json`, as a TypeScript
 * type. This is the one declaration: the JSON Schemas in schemas.json are
 * generated from these types (`npm run contract:schemas`), and the route
 * types are the framework's own route description. Types only, so the VS
 * Code extension bundles nothing from here.
 *
 * | Command / request                | Document              |
 * |----------------------------------|-----------------------|
 * | route:list                       | RouteListJson         |
 * | list                             | CommandListJson       |
 * | migrate                          | MigrateJson           |
 * | migrate:status                   | MigrationStatusJson   |
 * | migrate:rollback                 | RollbackJson          |
 * | migrate:fresh                    | MigrateFreshJson      |
 * | migrate:bundle                   | MigrationBundleJson   |
 * | key:generate (--rs256)           | KeyGenerateJson (KeyGenerateRs256Json) |
 * | make:auth, make:apikey-table     | MakeMigrationsJson    |
 * | make:apikey                      | MakeApiKeyJson        |
 * | LSP `svc/status`                 | ServerStatusJson      |
 *
 * Compatibility rule (as for traces): fields are only ever added.
 */
import type { RouteDescription, RouteMethod, RouteParam, SourceLocation } from '../../framework/router/types.ts'
import type { SeededRowsJson } from './database.ts'

export type RouteMethodJson = RouteMethod
export type RouteParamJson = RouteParam

/** One route of the compiled app (`route:list --json`, `storage/cache/routes.json`): the framework's description, with the source relative to the app folder. */
export interface RouteJson extends Omit<RouteDescription, 'source' | 'schemas' | 'responses'> {
  /** Where the route is defined, relative to the app folder; null for built-in routes (health, auth). */
  source: SourceLocation | null
  /** Which schemas the route declares (`.body()`, `.query()`, `.response()`); the schema objects themselves are in-process only. */
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
  migrations: Array<{
    name: string
    status: 'ran' | 'pending'
    batch: number | null
    ran_at: string | null
    /** Applied (status `ran`), but no file of that name in database/migrations/ any more: it cannot be rolled back until restored. */
    file_missing: boolean
  }>
}

export interface RollbackJson {
  rolled_back: string[]
}

export interface MigrationBundleJson {
  /** The generated module, relative to the project. */
  file: string
  /** The migrations it lists, in order. */
  migrations: string[]
  /** Whether the file on disk was out of date (with --check: nothing is written). */
  stale: boolean
  written: boolean
}

export interface MigrateFreshJson {
  ran: string[]
  /** With --seed: the seeders that ran, and what each added (db:seed's document). */
  seeded: string[]
  seeded_rows: SeededRowsJson[]
}

export interface KeyGenerateJson {
  /** Only with --show: the secret itself. */
  key: string | null
  /** The .env file the secret was written to. */
  written: string | null
}

/** `key:generate --rs256 --json`. */
export interface KeyGenerateRs256Json {
  algorithm: 'RS256'
  /** Only with --show: the PEM texts (nothing is written). */
  private_key: string | null
  public_key: string | null
  private_key_file: string | null
  public_key_file: string | null
  /** The .env file where JWT_ALGORITHM=RS256 was set. */
  written: string | null
}

/** `make:auth`, `make:apikey-table`: the migration files written into the app. */
export interface MakeMigrationsJson {
  /** Paths relative to the project folder. */
  written: string[]
  /** Migrations the app already has (a file with the same name after the timestamp). */
  skipped: string[]
  /** Of `skipped`, the ones that differ from the framework's text and that the database has already run: `--force` refuses to rewrite them (`E_MIGRATION_APPLIED`). Absent when none. */
  applied?: string[]
}

/** `make:apikey`: the key, shown once. */
export interface MakeApiKeyJson {
  id: number
  name: string
  /** The key itself; it is stored only hashed and cannot be shown again. */
  key: string
  scopes: string[]
  /** ISO 8601. */
  expires_at: string
}

/** `auth:token <email>`: a fresh access token (development and test only; what `--as` signs). */
export interface AuthTokenJson {
  user: { id: number; email: string; name: string; role: string }
  token: string
  token_type: 'Bearer'
  /** Seconds (JWT_TTL). */
  expires_in: number
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
  /** Recent traces (up to 1,000), null when the store cannot be read (no store yet, or no trace commands). */
  traces: number | null
  /** How many of them are replays (`svc replay` sent them), null with `traces`. */
  replays: number | null
  /** The svc version the server runs. */
  version: string
}
