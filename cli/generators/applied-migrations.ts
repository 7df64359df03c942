/**
 * Which of some migrations the app's database has applied: `--force` never
 * rewrites one of those (the database would not follow the new text; a
 * rollback would run a `down` that no longer matches what `up` did).
 */
import { existsSync } from 'node:fs'
import { databaseUrl } from '../../framework/node/database.ts'
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
