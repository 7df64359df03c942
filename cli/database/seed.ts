/**
 * Seeders: `database/seeders/*.ts`, each exporting `run(db)` (or a default
 * function), run in name order by `db:seed` and `migrate:fresh --seed`, with
 * the app's files (factories, models) imported as they are now. Each
 * runs in its own transaction (a failing seeder leaves none of its rows), and
 * what it added is measured as the change in every table's row count.
 */
import { existsSync, readdirSync } from 'node:fs'
import { basename, extname, join } from 'node:path'
import type { Database } from '../../framework/index.ts'
import type { DbSeedJson, SeededRowsJson } from '../contract/index.ts'
import { closestNames } from '../command/suggest.ts'
import { deriveNames, singularOfTable } from '../generators/names.ts'
import { CliError } from '../output/cli-error.ts'
import type { CommandIO } from '../output/io.ts'
import { withConsoleOnStderr } from '../output/print.ts'
import { forgetAppModules, importWithJiti, moduleCacheDir, useModuleCache, type ImportFile } from '../project/import-file.ts'
import { missingPackageHint } from '../project/load-app.ts'
import { explainMissingTable, missingTableIn } from '../project/missing-table.ts'
import type { Project } from '../project/project.ts'
import { listTables } from './inspect.ts'
import { commandErrorMessage } from './locked.ts'

export const SEEDER_FILE = /\.(ts|js|mjs)$/

export function seedersDir(project: Project): string {
  return join(project.appDir, 'database', 'seeders')
}

/** The seeders' names (file names without extension), in the order they run. */
export function seederNames(project: Project): string[] {
  const dir = seedersDir(project)
  if (!existsSync(dir)) return []
  return readdirSync(dir)
    .filter((file) => SEEDER_FILE.test(file) && !file.endsWith('.d.ts'))
    .sort()
    .map((file) => basename(file, extname(file)))
}

/**
 * The seeder `--class` names: its file name, in any case, with or without a
 * `Seeder` suffix or separators (`UserSeeder`, `user-seeder` and `users`
 * name `users.ts` or `UserSeeder.ts` alike when only one of them exists).
 */
export function selectSeeders(project: Project, only: string | undefined): string[] {
  const names = seederNames(project)
  if (only === undefined) return names
  const key = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '').replace(/seeder$/, '')
  const exact = names.filter((name) => name === only)
  const found = exact.length > 0 ? exact : names.filter((name) => key(name) === key(only) || key(name) === `${key(only)}s` || `${key(name)}s` === key(only))
  if (found.length === 1) return found
  if (found.length > 1) throw new CliError('E_BAD_ARGUMENTS', `--class=${only} names several seeders: ${found.join(', ')}`, { hint: 'give the file name exactly' })
  const suggestions = closestNames(only, names)
  throw new CliError('E_NO_SEEDER', `No seeder ${only} in ${seedersDir(project)}`, {
    hint:
      names.length === 0
        ? 'write one in database/seeders/ (exporting run(db)), or svc make:seeder <Name>'
        : `${suggestions.length > 0 ? `did you mean ${suggestions.join(', ')}? ` : ''}seeders: ${names.join(', ')}`,
  })
}

/** Runs the named seeders in order, each in a transaction; their console output goes to the command's stderr. */
export async function runSeeders(
  project: Project,
  db: Database,
  io: CommandIO,
  names: readonly string[] = seederNames(project),
  importFile: ImportFile = importWithJiti,
): Promise<DbSeedJson> {
  const result: DbSeedJson = { seeded: [], seeded_rows: [] }
  if (names.length === 0) return result
  const dir = seedersDir(project)
  if (importFile === importWithJiti) {
    // The whole app, as loadApp does: a seeder imports factories and models, which an edit since the last run
    // in this process (tests, the language server) would otherwise leave as first imported.
    forgetAppModules(project.appDir)
    useModuleCache(moduleCacheDir(project.storageDir))
  }
  const files = new Map(readdirSync(dir).filter((file) => SEEDER_FILE.test(file)).map((file) => [basename(file, extname(file)), file]))
  for (const name of names) {
    const module = await importSeeder(project, importFile, join(dir, files.get(name)!), name, result.seeded)
    const run = (module.run ?? module.default) as unknown
    if (typeof run !== 'function') throw new CliError('E_BAD_SEEDER', `${files.get(name)} exports no run(db) function`, { hint: 'export async function run(db: Database) { ... }' })
    const before = await rowCounts(db)
    try {
      await withConsoleOnStderr(io, () => db.transaction((tx) => (run as (db: Database) => Promise<void>)(tx)))
    } catch (error) {
      const message = commandErrorMessage(error)
      const kept = `none of its rows were kept${result.seeded.length > 0 ? ` (the seeders before it ran: ${result.seeded.join(', ')})` : ''}`
      const table = missingTableIn(message)
      // A table that is not there is most often a migration that has not run (make:crud --seed, then db:seed): the fix is svc migrate, not the seeder.
      const explained = table === undefined ? undefined : await explainMissingTable(project, db, 'being seeded', table).catch(() => undefined)
      throw new CliError('E_SEEDER', `Seeder ${name} failed: ${message}`, {
        hint: explained === undefined ? `${missingParentFix(message)}${kept}; fix it and run svc db:seed --class=${name}` : `${explained}; then svc db:seed --class=${name} (${kept})`,
        cause: error,
      })
    }
    result.seeded.push(name)
    result.seeded_rows.push(...changedRows(name, before, await rowCounts(db)))
  }
  return result
}

/**
 * A foreign key naming no row (`project_id 1 names no row of projects`) is, in a seeder, most often a factory
 * giving the column a number (`project_id: n`, as make:factory writes for a plain `*_id:integer`): the fix is the
 * parent's factory as the value, or a stored row's id.
 */
function missingParentFix(message: string): string {
  const missing = /: ([a-z_][a-z0-9_]*) \S+ names no row of ([A-Za-z_][A-Za-z0-9_]*)/.exec(message)
  if (missing === null) return ''
  const parent = deriveNames(singularOfTable(missing[2]!)).singular.camel
  return `${missing[1]} must name a row of ${missing[2]}: in the factory, give it the parent's factory (${missing[1]}: ${parent}Factory, docs/models.md) or a stored row's id instead of a number of its own; `
}

/** "users: +2 users", one line per seeder, for the human views. */
export function seededLines(result: DbSeedJson): string[] {
  return result.seeded.map((name) => {
    const changes = result.seeded_rows.filter((row) => row.seeder === name)
    const text = changes.map((row) => `${row.added > 0 ? '+' : ''}${row.added} ${row.table}`).join(', ')
    return `Seeded ${name}${text === '' ? ' (no rows changed)' : `: ${text}`}`
  })
}

async function rowCounts(db: Database): Promise<Map<string, number>> {
  return new Map((await listTables(db)).map((table) => [table.name, table.rows]))
}

function changedRows(seeder: string, before: Map<string, number>, after: Map<string, number>): SeededRowsJson[] {
  return [...after]
    .map(([table, rows]) => ({ seeder, table, added: rows - (before.get(table) ?? 0) }))
    .filter((row) => row.added !== 0)
}

/**
 * A seeder's module, or E_SEEDER saying it does not load, with the fix: `npm install` for a package not installed
 * (a new project seeded before it), else the file. It was the loader's words alone (`error: Cannot find module 'svc'`).
 */
async function importSeeder(project: Project, importFile: ImportFile, path: string, name: string, before: readonly string[]): Promise<Record<string, unknown>> {
  try {
    return await importFile(path)
  } catch (error) {
    const ran = before.length > 0 ? ` (the seeders before it ran: ${before.join(', ')})` : ''
    throw new CliError('E_SEEDER', `Seeder ${name} does not load: ${(error as Error).message.split('\n')[0]}`, {
      hint: `${missingPackageHint(project, error) ?? `fix database/seeders/${basename(path)}`}; it seeded nothing${ran}`,
      cause: error,
    })
  }
}
