/**
 * A request that fails on `no such table: users` says why, in the 500's log
 * line and (with APP_DEBUG) its body: migrations that have not run on this
 * database (a deleted storage/ folder takes database.sqlite with it, and the
 * next start creates an empty one), or a table no migration creates. The
 * driver's words alone sent users looking for a bug in their routes.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { basename, extname, join, relative } from 'node:path'
import { logUnexpectedError, type Database, type ErrorHook } from '../../framework/index.ts'
import { errorResponse, TRACE_HEADER } from '../../framework/http/response.ts'
import { frameworkTableCommand, tablesCreatedBy } from './framework-tables.ts'
import { MIGRATION_FILE, migrationsDir } from './migrations.ts'
import type { Project } from './project.ts'

/** The table a driver error names (`SQLITE_ERROR: no such table: users`, `main.users` kept as written). */
export function missingTable(error: unknown): string | undefined {
  return error instanceof Error ? missingTableIn(error.message) : undefined
}

/** The same, read from an error's message as a trace keeps it. */
export function missingTableIn(message: string): string | undefined {
  return /no such table: ([\w.$]+)/.exec(message)?.[1]
}

/** The driver's error with the reason and the fix in its message; the driver's own error is its cause. */
export class MissingTableError extends Error {
  readonly table: string
  constructor(table: string, explanation: string, cause: Error) {
    super(`no such table: ${table}: ${explanation}`, { cause })
    this.name = 'MissingTableError'
    this.table = table
    // The driver's frames: where the query was made.
    this.stack = `${this.name}: ${this.message}\n${cause.stack?.split('\n').slice(1).join('\n') ?? ''}`.trimEnd()
  }
}

/**
 * Why `table` is missing from `database`: the migrations of
 * database/migrations/ that have not run on it, read without writing (no
 * `migrations` table is created, as production must not); else, every one
 * having run, the one that creates it (so the table was dropped since), the
 * command that writes the migration of one of svc's own tables (`jobs`:
 * make:queue-table), or that none creates it.
 */
export async function explainMissingTable(project: Project, database: Database, where: string, table: string): Promise<string> {
  const files = migrationNames(project)
  const applied = await appliedNames(database)
  const pending = files.filter((name) => !applied.has(name))
  const dir = relative(project.root, migrationsDir(project)) || '.'
  const name = table.replace(/^main\./, '')
  const creating = files.find((file) => tablesCreatedBy(migrationText(project, file)).includes(name))
  const command = frameworkTableCommand(name)
  if (pending.length > 0) {
    const shown = pending.length > 3 ? `${pending.slice(0, 3).join(', ')} and ${pending.length - 3} more` : pending.join(', ')
    const fresh = applied.size === 0 ? ' (no migration has run on it: a new or emptied database, as after deleting storage/)' : ''
    const notRun = `${pending.length} migration(s) have not run on the database ${where}${fresh}: ${shown}`
    if (creating !== undefined) return `${notRun}; run svc migrate (or svc serve --migrate)`
    // svc migrate alone would leave the table missing: say what writes its migration first.
    if (command !== undefined) return `${notRun}, and none in ${dir} creates ${name}, one of svc's own tables: run svc ${command} (which writes its migration), then svc migrate`
    return `${notRun}, and none in ${dir} creates ${name}: add one (svc make:migration) or check the table's name, then svc migrate`
  }
  if (creating !== undefined) {
    return `every migration in ${dir} has run on the database ${where}, ${creating} among them, which creates it: the table was dropped since (by hand, or by a later migration); add a migration that creates it again, or, on a development database, svc migrate:fresh (which drops every table)`
  }
  if (command !== undefined) {
    return `every migration in ${dir} has run on the database ${where}, and none creates it: it is one of svc's own tables, whose migration svc ${command} writes; run it, then svc migrate`
  }
  return `every migration in ${dir} has run on the database ${where}, and none creates it: add one (svc make:migration), or check the table's name`
}

function migrationText(project: Project, name: string): string {
  const dir = migrationsDir(project)
  const file = readdirSync(dir).find((entry) => basename(entry, extname(entry)) === name && MIGRATION_FILE.test(entry))
  try {
    return file === undefined ? '' : readFileSync(join(dir, file), 'utf8')
  } catch {
    return ''
  }
}

/**
 * The app's error hook as the CLI loads it: a missing table is answered and
 * logged with its explanation; any other error as the framework does
 * without a hook.
 */
export function explainMissingTables(project: Project, database: Database, where: string): ErrorHook {
  return async (error, c) => {
    const table = missingTable(error)
    if (table === undefined) {
      logUnexpectedError(error, c)
      return undefined
    }
    let explained: unknown = error
    try {
      explained = new MissingTableError(table, await explainMissingTable(project, database, where, table), error as Error)
    } catch {
      // The explanation is a courtesy: a database that cannot answer it leaves the driver's error as it was.
    }
    logUnexpectedError(explained, c)
    return errorResponse(explained, { [TRACE_HEADER]: c.traceId }, c.config.debug)
  }
}

function migrationNames(project: Project): string[] {
  try {
    return readdirSync(migrationsDir(project))
      .filter((file) => MIGRATION_FILE.test(file))
      .map((file) => basename(file, extname(file)))
      .sort()
  } catch {
    return [] // no database/migrations folder
  }
}

async function appliedNames(database: Database): Promise<Set<string>> {
  try {
    const { rows } = await database.execute('select name from migrations')
    return new Set(rows.map((row) => String((row as Record<string, unknown>).name)))
  } catch (error) {
    if (missingTable(error) !== undefined) return new Set()
    throw error
  }
}
