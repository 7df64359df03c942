/**
 * Writes framework-defined migrations (auth, api keys) as files of the app, once. With `now`, a new file is
 * dated like every generated migration (now, or one second after the app's latest) instead of by the source's
 * fixed name, so that it sorts after the migrations the app already has. As every generator: an existing file
 * is kept unless `force`, and `force` rewrites only what differs, never a migration the database has run.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { appliedMigrations, migrationName, refuseAppliedMigrations } from '../generators/applied-migrations.ts'
import { migrationTimestamp } from '../generators/migration-timestamp.ts'
import { printMade } from '../generators/report.ts'
import { renderMigrationFile, type MigrationSource } from './migration-file.ts'
import type { MakeMigrationsJson } from '../contract/index.ts'
import type { CommandIO } from '../output/io.ts'
import { migrationsDir } from './migrations.ts'
import type { Project } from './project.ts'

/** The `--json` document, and for people: which skipped files hold what would be written, which written ones existed. */
export interface MigrationFilesOutcome {
  json: MakeMigrationsJson
  identical: string[]
  overwritten: string[]
}

export async function writeMigrationFiles(project: Project, sources: readonly MigrationSource[], command: string, force: boolean, now?: Date): Promise<MigrationFilesOutcome> {
  const dir = migrationsDir(project)
  const existing = existsSync(dir) ? readdirSync(dir) : []
  const outcome: MigrationFilesOutcome = { json: { written: [], skipped: [] }, identical: [], overwritten: [] }
  const writes: Array<{ target: string; contents: string }> = []
  const differing: string[] = []
  for (const source of sources) {
    const suffix = source.name.replace(/^\d+_/, '')
    const present = existing.find((file) => file.replace(/^\d+_/, '').replace(/\.(ts|js|mjs)$/, '') === suffix)
    const contents = renderMigrationFile(source, command)
    if (present === undefined) {
      // Dated one by one, each after the last one planned, so that they keep their order.
      const target = join(dir, `${now === undefined ? source.name : `${migrationTimestamp(dir, now, writes.map((write) => write.target))}_${suffix}`}.ts`)
      writes.push({ target, contents })
      outcome.json.written.push(relative(project.root, target))
      continue
    }
    const target = join(dir, present)
    const identical = sameMigration(readFileSync(target, 'utf8'), contents)
    if (!force || identical) {
      outcome.json.skipped.push(relative(project.root, target))
      if (identical) outcome.identical.push(relative(project.root, target))
      else differing.push(target)
      continue
    }
    writes.push({ target, contents })
    outcome.json.written.push(relative(project.root, target))
    outcome.overwritten.push(relative(project.root, target))
  }
  // Checked before the first write: a refusal leaves every file as it was.
  await refuseAppliedMigrations(project, writes.filter((write) => outcome.overwritten.includes(relative(project.root, write.target))).map((write) => write.target))
  // A kept migration that differs says whether --force could rewrite it.
  const applied = await appliedMigrations(project, differing.map(migrationName))
  if (applied.size > 0) outcome.json.applied = differing.filter((target) => applied.has(migrationName(target))).map((target) => relative(project.root, target))
  mkdirSync(dir, { recursive: true })
  for (const { target, contents } of writes) writeFileSync(target, contents)
  return outcome
}

/**
 * The same text but for the command its first line names: `svc new` writes the auth migrations as
 * `Written by \`svc new\``, and `make:auth --force` in that project has nothing to rewrite (it refused, the
 * database having run them).
 */
function sameMigration(existing: string, rendered: string): boolean {
  const unsigned = (text: string) => text.replace(/^\/\*\* Written by `svc [^`]+`:/, '/** Written by svc:')
  return unsigned(existing) === unsigned(rendered)
}

/** What `make:auth` and the `make:*-table` commands print: the lines every generator prints. */
export function printMigrationFiles(io: CommandIO, outcome: MigrationFilesOutcome, next: string): void {
  const skipped = outcome.json.skipped.map((path) => ({ path, identical: outcome.identical.includes(path), ...(outcome.json.applied?.includes(path) === true ? { applied: true as const } : {}) }))
  printMade(io, { written: outcome.json.written, skipped, edits: [] }, [next], outcome.overwritten)
}
