/**
 * Writes framework-defined migrations (auth, api keys) as files of the app, once. With `now`, a new file is
 * dated like every generated migration (now, or one second after the app's latest) instead of by the source's
 * fixed name, so that it sorts after the migrations the app already has.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { refuseRewritingApplied } from '../generators/applied-migrations.ts'
import { migrationTimestamp } from '../generators/migration-timestamp.ts'
import { renderMigrationFile, type MigrationSource } from './migration-file.ts'
import type { MakeMigrationsJson } from '../contract/index.ts'
import { migrationsDir } from './migrations.ts'
import type { Project } from './project.ts'

/**
 * With `force`, a file the app has is rewritten unless it already holds that text (then it is listed as
 * skipped), and never once the database has run it: the command then refuses and writes nothing.
 */
export async function writeMigrationFiles(project: Project, sources: readonly MigrationSource[], command: string, force: boolean, now?: Date): Promise<MakeMigrationsJson> {
  const dir = migrationsDir(project)
  mkdirSync(dir, { recursive: true })
  const existing = readdirSync(dir)
  const result: MakeMigrationsJson = { written: [], skipped: [] }
  const files = sources.map((source) => {
    const suffix = source.name.replace(/^\d+_/, '')
    const present = existing.find((file) => file.replace(/^\d+_/, '').replace(/\.(ts|js|mjs)$/, '') === suffix)
    return { source, suffix, present, contents: renderMigrationFile(source, command) }
  })
  const unchanged = (file: (typeof files)[number]) => file.present !== undefined && readFileSync(join(dir, file.present), 'utf8') === file.contents
  if (force) await refuseRewritingApplied(project, files.filter((file) => file.present !== undefined && !unchanged(file)).map((file) => join(dir, file.present!)))
  // One file at a time: each new one is dated after the one written before it.
  for (const file of files) {
    const target = join(dir, file.present ?? `${now === undefined ? file.source.name : `${migrationTimestamp(dir, now)}_${file.suffix}`}.ts`)
    if (file.present !== undefined && (!force || unchanged(file))) {
      result.skipped.push(relative(project.root, target))
      continue
    }
    writeFileSync(target, file.contents)
    result.written.push(relative(project.root, target))
  }
  return result
}
