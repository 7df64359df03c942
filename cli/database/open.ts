/**
 * The app's database for commands that only read it or add rows to it
 * (db:show, db:seed, user:role, migrate:status, queue:status, rate:status): an embedded file that does
 * not exist yet is an error saying to migrate (or, for migrate:status, every
 * migration pending), never a new empty file.
 */
import { existsSync } from 'node:fs'
import type { AppConfig, Database } from '../../framework/index.ts'
import { databaseUrl } from '../../framework/node/index.ts'
import { CliError } from '../output/cli-error.ts'
import { loadConfig, openProjectDatabase } from '../project/load-app.ts'
import type { Project } from '../project/project.ts'

export async function withExistingDatabase<T>(project: Project, work: (db: Database) => Promise<T>): Promise<T> {
  const config = loadConfig(project)
  const db = await openExistingDatabase(project, config)
  try {
    return await work(db)
  } finally {
    db.close()
  }
}

/**
 * The app's database when it exists (or is a server): E_NO_DATABASE for an embedded file not made yet.
 * What a command that reads it would otherwise say of an empty new file (no such table: jobs, so "run svc
 * make:queue-table") sends the user to write a migration the app already has.
 */
export async function openExistingDatabase(project: Project, config: AppConfig): Promise<Database> {
  refuseMissingDatabase(project, config)
  return openProjectDatabase(project, config)
}

/** E_NO_DATABASE when the app's embedded database file does not exist yet (svc migrate creates it). */
export function refuseMissingDatabase(project: Project, config: AppConfig): void {
  const missing = missingDatabaseFile(project, config)
  if (missing !== undefined) {
    throw new CliError('E_NO_DATABASE', `No database yet at ${missing}`, { hint: 'svc migrate creates it (svc migrate:fresh --seed also seeds it)' })
  }
}

/** The path of the app's embedded database file when it does not exist yet; undefined when it does, or for a server. */
export function missingDatabaseFile(project: Project, config = loadConfig(project)): string | undefined {
  const url = databaseUrl(config.databaseUrl, { storageDir: project.storageDir, projectDir: project.root })
  return url.startsWith('file:') && !existsSync(url.slice('file:'.length)) ? url.slice('file:'.length) : undefined
}

/** `"name"`: a table or column name as an SQL identifier. */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`
}
