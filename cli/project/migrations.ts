/** Finds `database/migrations/<timestamp>_<name>.ts` files and loads them as migrations. */
import { existsSync, readdirSync } from 'node:fs'
import { basename, extname, join } from 'node:path'
import type { Database, Migration, MigrationError, MigrationEvents } from '../../framework/index.ts'
import { diskFullHint, isDiskFull } from '../database/disk-full.ts'
import { CliError } from '../output/cli-error.ts'
import type { CommandIO } from '../output/io.ts'
import { createProgress, type Progress } from '../output/progress.ts'
import { forgetAppModules, importWithJiti, moduleCacheDir, useModuleCache, type ImportFile } from './import-file.ts'
import { databaseWhere, loadConfig, openProjectDatabase } from './load-app.ts'
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
  const entries = readdirSync(dir)
  refuseMisnamed(entries.filter(isMisnamed))
  const files = entries.filter((file) => MIGRATION_FILE.test(file)).sort()
  const migrations: Migration[] = []
  for (const file of files) {
    let module: Record<string, unknown>
    try {
      module = await importFile(join(dir, file))
    } catch (error) {
      throw new CliError('E_MIGRATION', `Migration ${file} does not load: ${loadError(error, dir)}`, {
        hint: `fix database/migrations/${file} (nothing ran: every migration loads before the first one runs)`,
        cause: error,
      })
    }
    const up = module.up
    const down = module.down
    if (typeof up !== 'function') {
      throw new CliError('E_BAD_MIGRATION', `${file} does not export an up(db) function`, {
        hint: `export async function up(db: Database) { ... } (and down(db) to undo it) from database/migrations/${file}; nothing ran: every migration loads before the first one runs`,
      })
    }
    migrations.push({
      name: basename(file, extname(file)),
      up: up as (db: Database) => Promise<void>,
      ...(typeof down === 'function' ? { down: down as (db: Database) => Promise<void> } : {}),
    })
  }
  return migrations
}

/**
 * A module in database/migrations/ that MIGRATION_FILE does not match would
 * never run: refused rather than skipped in silence. Not counted: the bundle
 * `migrate:bundle` writes (`index.ts`), declaration files, other kinds of
 * file (`.sql`, `.md`), and helper modules whose name starts with `_`.
 */
function isMisnamed(file: string): boolean {
  return /\.(ts|js|mjs|cjs|mts|cts)$/.test(file) && !/\.d\.[mc]?ts$/.test(file) && !/^index\.(ts|js|mjs)$/.test(file) && !file.startsWith('_') && !MIGRATION_FILE.test(file)
}

function refuseMisnamed(misnamed: string[]): void {
  if (misnamed.length === 0) return
  const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14)
  const renamed = (file: string) => {
    const extension = /\.(ts|js|mjs)$/.exec(file)?.[0] ?? '.ts'
    const name = file.slice(0, file.lastIndexOf('.')).replace(/^[\d_-]+/, '').replace(/[^A-Za-z0-9_]+/g, '_') || 'migration'
    return `${stamp}_${name}${extension}`
  }
  const [first] = misnamed
  throw new CliError(
    'E_MIGRATION_NAME',
    `${misnamed.join(', ')} in database/migrations/ ${misnamed.length === 1 ? 'is' : 'are'} not named <timestamp>_<name>.ts (like 20260101000000_create_posts_table.ts), so no migration command would run ${misnamed.length === 1 ? 'it' : 'them'}`,
    {
      hint: `rename it: mv database/migrations/${first} database/migrations/${renamed(first!)} (the timestamp orders the migrations; svc make:migration <name> names new ones); a helper module that is not a migration starts with _`,
    },
  )
}

/** The error's first line, and where it is when the message says (jiti's ParseError: `<file>:3:0` on its second line). */
function loadError(error: unknown, dir: string): string {
  const text = error instanceof Error ? `${error.name === 'Error' ? '' : `${error.name}: `}${error.message}` : String(error)
  const [first, ...rest] = text.split('\n').map((line) => line.trim())
  const where = rest.find((line) => /:\d+:\d+$/.test(line))
  return `${first}${where === undefined ? '' : ` at ${where.replace(`${dir}/`, 'database/migrations/')}`}`
}

/** Opens the project's database with its migrations for one command, and closes it after. */
export async function withProjectMigrations<T>(
  project: Project,
  work: (context: { project: Project; db: Database; migrations: Migration[] }) => Promise<T>,
): Promise<T> {
  const config = loadConfig(project)
  const db = await openProjectDatabase(project, config)
  try {
    return await work({ project, db, migrations: await loadMigrations(project) })
  } catch (error) {
    if (error instanceof Error && error.name === 'MigrationError') {
      const failure = error as MigrationError
      const retry = failure.reason === 'down' ? 'run svc migrate:rollback again' : 'run svc migrate again; the ones before it stay applied'
      const hint = isDiskFull(error) ? diskFullHint(databaseWhere(project, config), retry) : migrationHint(failure)
      throw new CliError('E_MIGRATION', error.message, { hint, cause: error })
    }
    throw error
  } finally {
    db.close()
  }
}

/** What to do about a migration that stopped a run, by what stopped it. */
function migrationHint(error: MigrationError): string {
  const file = `database/migrations/${error.migration}.ts`
  switch (error.reason) {
    case 'up':
      return 'fix the migration and run svc migrate again; the ones before it stay applied'
    case 'down':
      return `fix its down() in ${file} and run svc migrate:rollback again; the ones rolled back before it stay rolled back`
    case 'missing_file':
      return `nothing was rolled back: restore ${file} (from version control) so that its down() can run, then svc migrate:rollback again`
    case 'no_down':
      return `nothing was rolled back: add export async function down(db) to ${file}, then svc migrate:rollback again`
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
