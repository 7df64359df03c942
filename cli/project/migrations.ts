/** Finds `database/migrations/<timestamp>_<name>.ts` files and loads them as migrations. */
import { existsSync, readdirSync } from 'node:fs'
import { basename, extname, join } from 'node:path'
import type { Database, Migration, MigrationEvents } from '../../framework/index.ts'
import { CliError } from '../output/cli-error.ts'
import type { CommandIO } from '../output/io.ts'
import { createProgress, type Progress } from '../output/progress.ts'
import { forgetAppModules, importWithJiti, moduleCacheDir, useModuleCache, type ImportFile } from './import-file.ts'
import { loadConfig, openProjectDatabase } from './load-app.ts'
import type { Project } from './project.ts'

export const MIGRATION_FILE = /^\d{4,}_[A-Za-z0-9_]+\.(ts|js|mjs)$/

export function migrationsDir(project: Project): string {
  return join(project.appDir, 'database', 'migrations')
}

export async function loadMigrations(project: Project, importFile: ImportFile = importWithJiti): Promise<Migration[]> {
  const dir = migrationsDir(project)
  if (!existsSync(dir)) return []
  if (importFile === importWithJiti) {
    forgetAppModules(dir)
    useModuleCache(moduleCacheDir(project.storageDir))
  }
  const files = readdirSync(dir)
    .filter((file) => MIGRATION_FILE.test(file))
    .sort()
  const migrations: Migration[] = []
  for (const file of files) {
    const module = await importFile(join(dir, file))
    const up = module.up
    const down = module.down
    if (typeof up !== 'function') {
      throw new CliError('E_BAD_MIGRATION', `${file} does not export an up(db) function`)
    }
    migrations.push({
      name: basename(file, extname(file)),
      up: up as (db: Database) => Promise<void>,
      ...(typeof down === 'function' ? { down: down as (db: Database) => Promise<void> } : {}),
    })
  }
  return migrations
}

/** Opens the project's database with its migrations for one command, and closes it after. */
export async function withProjectMigrations<T>(
  project: Project,
  work: (context: { project: Project; db: Database; migrations: Migration[] }) => Promise<T>,
): Promise<T> {
  const db = await openProjectDatabase(project, loadConfig(project))
  try {
    return await work({ project, db, migrations: await loadMigrations(project) })
  } catch (error) {
    if (error instanceof Error && error.name === 'MigrationError') {
      throw new CliError('E_MIGRATION', error.message, { hint: 'fix the migration; the ones before it stay applied' })
    }
    throw error
  } finally {
    db.close()
  }
}

/**
 * Progress of a migration run: the live line (or one plain line per
 * migration) on stderr, and `Migrated: <name>` on stdout as each one
 * finishes; with `--json` only the progress, stdout keeps the document.
 */
export function migrationProgress(io: CommandIO, json: boolean, header?: string): MigrationEvents & Pick<Progress, 'done'> & { stop(): void } {
  let progress: Progress | undefined
  return {
    onMigration({ name, total, done }) {
      if (progress === undefined) {
        progress = createProgress(io, { label: 'Migrating', total })
        if (header !== undefined && !json) progress.print(header)
      }
      if (!done) return progress.step(name)
      progress.tick()
      if (!json) progress.print(`Migrated: ${name}`)
    },
    done() {
      if (progress === undefined && header !== undefined && !json) io.stdout.write(`${header}\n`)
      progress?.done()
      header = undefined
    },
    /** Ends the live line only: after a failure, the header (what was done) is not said. */
    stop() {
      progress?.done()
    },
  }
}
