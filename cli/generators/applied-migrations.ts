/**
 * Which of some migrations the app's database has applied: `--force` never
 * rewrites one of those (the database would not follow the new text; a
 * rollback would run a `down` that no longer matches what `up` did).
 */
import { existsSync } from 'node:fs'
import { basename, relative, sep } from 'node:path'
import { databaseUrl } from '../../framework/node/database.ts'
import { CliError } from '../output/cli-error.ts'
import { loadConfig, openProjectDatabase } from '../project/load-app.ts'
import type { Project } from '../project/project.ts'

/** The names (`20260115103000_create_products_table`) among `names` that the app's database has run. Unknown (no database yet, or none reachable): none. */
export async function appliedMigrations(project: Project, names: readonly string[]): Promise<Set<string>> {
  if (names.length === 0) return new Set()
  try {
    const config = loadConfig(project)
    const url = databaseUrl(config.databaseUrl, { storageDir: project.storageDir, projectDir: project.root })
    // Not opened when it does not exist: opening would create it.
    if (url.startsWith('file:') && !existsSync(url.slice('file:'.length))) return new Set()
    const db = await openProjectDatabase(project, config)
    try {
      const table = await db.execute("select name from sqlite_master where type = 'table' and name = 'migrations'")
      if (table.rows.length === 0) return new Set()
      const rows = await db.execute(`select name from migrations where name in (${names.map(() => '?').join(', ')})`, [...names])
      return new Set(rows.rows.map((row) => String(row.name)))
    } finally {
      db.close()
    }
  } catch {
    return new Set()
  }
}

/** A migration file's name as the `migrations` table holds it: `20260115103000_create_products_table`. */
export function migrationName(path: string): string {
  return basename(path).replace(/\.(ts|js|mjs)$/, '')
}

/**
 * Refuses (`E_MIGRATION_APPLIED`, before anything is written) when `--force` would rewrite, with other
 * text, a migration file (absolute paths) that the database has run. Every generator that writes
 * migrations asks this before its first write: make:model -m, make:migration, make:crud, make:auth, make:*-table.
 */
export async function refuseAppliedMigrations(project: Project, files: readonly string[]): Promise<void> {
  const applied = await appliedMigrations(project, files.map(migrationName))
  if (applied.size === 0) return
  const shown = files.filter((absolute) => applied.has(migrationName(absolute))).map((absolute) => relative(project.root, absolute).split(sep).join('/'))
  throw new CliError('E_MIGRATION_APPLIED', `--force would rewrite ${shown.join(', ')}, which the database has already run (svc migrate:status: Ran); nothing was written`, {
    hint: 'change the table with a new migration (svc make:migration add_<column>_to_<table>_table --fields=...), or svc migrate:rollback first, then run this again',
  })
}
