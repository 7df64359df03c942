/** The documents `make:*` generators print with `--json`. */

/** A file a generator would have written, kept as it was. */
export interface MakeSkippedJson {
  /** Relative to the project folder. */
  path: string
  /** True when it already holds what the generator would write; false when it differs (`--force` overwrites it). */
  identical: boolean
  /**
   * Present (true) on a differing migration the app's database has already run: `--force` will not overwrite it
   * (it refuses, `E_MIGRATION_APPLIED`); change its table with a new migration.
   */
  applied?: true
}

/** An edit of a file the app has (routes/api.ts, app/listeners/index.ts, a model, app/kernel.ts, lang/index.ts). */
export interface MakeEditJson {
  path: string
  /** What the edit adds: `the products routes`. */
  what: string
  /**
   * `created`: the file did not exist and was written; `changed`: edited; `unchanged`: it already has it;
   * `manual`: its shape was not recognised, so it was left untouched: add `lines` by hand.
   */
  status: 'created' | 'changed' | 'unchanged' | 'manual'
  /** Why the edit was not made (status `manual`). */
  reason?: string
  /** What to add by hand (status `manual`). */
  lines?: string[]
}

/** What a generator (`make:model`, `make:crud`, ...) wrote, skipped and edited. */
export interface MakeJson {
  /** Written files, relative to the project folder. */
  written: string[]
  skipped: MakeSkippedJson[]
  edits: MakeEditJson[]
}
