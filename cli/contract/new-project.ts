/** `new` / `new:project` and `start`: the project created. Types only; fields are only ever added. */

/** `new <name> --json`, `start --json`. */
export interface NewProjectJson {
  /** The package name (the folder's name). */
  name: string
  /** The project folder, absolute. */
  path: string
  /** The project's files, relative to `path`, as written (the example resource's are make:crud's own). */
  files: string[]
  /** package.json's svc dependency. */
  svc: string
  /** '' for the embedded SQLite file (storage/database.sqlite). */
  database_url: string
  jwt_algorithm: 'HS256' | 'RS256'
  /** The example resource made with make:crud, or null. */
  example: string | null
  /** What to run next, in order. */
  next: string[]
}
