/** `new` / `new:project` and `start`: the project created. Types only; fields are only ever added. */
import type { MakeEditJson } from './generators.ts'

/** `new <name> --json`, `start --json`. */
export interface NewProjectJson {
  /** The package name (the folder's name). */
  name: string
  /** The project folder, absolute. */
  path: string
  /** The files written, relative to `path`: the project's, then the example resource's. */
  files: string[]
  /** What the example resource changed in the project's files (its routes in routes/api.ts); empty without one. */
  edits: MakeEditJson[]
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
